package dev.bothy.platform.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The loop primitive on a settable clock: a wait ends when the clock says so or a wake comes, never
 * because wall time passed, so every outcome here is decided by the test.
 */
class ServiceLoopTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration INTERVAL = Duration.ofMinutes(1);

  private final SettableClock clock = new SettableClock(T0);
  private final TestTime time = new TestTime();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final List<ServiceLoop> loops = new ArrayList<>();

  /**
   * The pause of the tests. Frozen, it blocks a millisecond at a time and lets the clock decide;
   * flowing, every wait passes at once by moving the clock by the whole wait.
   */
  private final class TestTime implements Pause {
    final AtomicInteger waits = new AtomicInteger();
    final List<Duration> asked = new CopyOnWriteArrayList<>();
    volatile boolean flowing;

    @Override
    public void await(Object monitor, Duration atMost) throws InterruptedException {
      waits.incrementAndGet();
      asked.add(atMost);
      if (flowing) {
        clock.advance(atMost);
      } else {
        monitor.wait(1);
      }
    }

    /** Waits until the loop has entered its wait {@code n} more times. */
    void awaitWaits(int n) throws InterruptedException {
      int target = waits.get() + n;
      ServiceLoopTest.await("the loop waits", () -> waits.get() >= target);
    }
  }

  /** Counts the calls of every method of the loop's log. */
  private static final class CountingLog implements LoopLog {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void failing(Throwable cause, Duration retryIn) {
      calls.add("failing " + cause.getMessage() + " " + retryIn);
    }

    @Override
    public void recovered() {
      calls.add("recovered");
    }

    @Override
    public void ended(Throwable cause) {
      calls.add("ended " + cause.getClass().getSimpleName());
    }
  }

  private ServiceLoopBuilder loop(String name) {
    return ServiceLoop.named(name).every(INTERVAL).onFatal(fatal::add).time(clock, time);
  }

  private ServiceLoop started(ServiceLoop loop) {
    loops.add(loop);
    loop.start();
    return loop;
  }

  @AfterEach
  void stopLoops() {
    time.flowing = true;
    ServiceLoop.stopAll(loops, Duration.ofSeconds(5));
  }

  @Test
  void wakes_while_an_iteration_runs_coalesce_into_one_more_iteration() throws Exception {
    CountDownLatch inFirst = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    ServiceLoop loop =
        started(
            loop("bothy-test-coalesce")
                .build(
                    () -> {
                      if (calls.incrementAndGet() == 1) {
                        inFirst.countDown();
                        release.await();
                      }
                      return Next.WAIT;
                    }));
    assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 10; i++) {
      loop.wake();
    }
    release.countDown();
    await("the iteration for the wakes", () -> calls.get() == 2);
    time.awaitWaits(20);
    assertThat(calls.get()).as("ten wakes, one more iteration").isEqualTo(2);

    loop.wake();
    await("a wake during the wait", () -> calls.get() == 3);
    assertThat(fatal).isEmpty();
  }

  @Test
  void the_interval_is_counted_on_the_clock() throws Exception {
    List<Instant> runs = new CopyOnWriteArrayList<>();
    started(
        loop("bothy-test-interval")
            .build(
                () -> {
                  runs.add(clock.now());
                  return Next.WAIT;
                }));
    await("the first iteration", () -> runs.size() == 1);
    time.awaitWaits(1);
    clock.advance(INTERVAL.minusSeconds(1));
    time.awaitWaits(5);
    assertThat(runs).as("a second short of the interval").hasSize(1);
    assertThat(time.asked.get(time.asked.size() - 1)).isLessThanOrEqualTo(Duration.ofSeconds(1));

    clock.advance(Duration.ofSeconds(1));
    await("the iteration after the interval", () -> runs.size() == 2);
    assertThat(runs).containsExactly(T0, T0.plus(INTERVAL));
  }

  @Test
  void again_runs_the_next_iteration_without_waiting() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    started(
        loop("bothy-test-again").build(() -> calls.incrementAndGet() < 3 ? Next.AGAIN : Next.WAIT));
    await("three iterations", () -> calls.get() == 3);
    time.awaitWaits(20);
    assertThat(calls.get()).isEqualTo(3);
    assertThat(time.asked).allMatch(INTERVAL::equals);
  }

  @Test
  void a_failing_iteration_is_reported_once_and_its_recovery_once() throws Exception {
    CountingLog log = new CountingLog();
    List<Instant> runs = new CopyOnWriteArrayList<>();
    time.flowing = true;
    started(
        loop("bothy-test-failing")
            .log(log)
            .retryDelay(failures -> Duration.ofSeconds(failures))
            .build(
                () -> {
                  runs.add(clock.now());
                  if (runs.size() <= 3) {
                    throw new IllegalStateException("down " + runs.size());
                  }
                  time.flowing = false;
                  return Next.WAIT;
                }));
    await("the iteration after the outage", () -> runs.size() == 4);
    time.awaitWaits(1);

    assertThat(log.calls).containsExactly("failing down 1 PT1S", "recovered");
    assertThat(runs)
        .as("the retry delays grow with the failures, on the clock")
        .containsExactly(T0, T0.plusSeconds(1), T0.plusSeconds(3), T0.plusSeconds(6));
    assertThat(fatal).isEmpty();
  }

  @Test
  void the_standard_log_warns_once_and_says_once_that_it_recovered() throws Exception {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ServiceLoopTest.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    AtomicInteger calls = new AtomicInteger();
    try {
      time.flowing = true;
      started(
          loop("bothy-test-log")
              .log(LoopLog.of(logger, "test fetch", "queue=default"))
              .build(
                  () -> {
                    if (calls.incrementAndGet() <= 3) {
                      throw new IllegalStateException("database down");
                    }
                    time.flowing = false;
                    return Next.WAIT;
                  }));
      await("the iteration after the outage", () -> calls.get() == 4);
      time.awaitWaits(1);
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list)
        .extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                Level.WARN,
                "test fetch failed, retrying: queue=default"
                    + " error.type=java.lang.IllegalStateException sqlstate=none"),
            org.assertj.core.groups.Tuple.tuple(Level.INFO, "test fetch recovered: queue=default"));
  }

  @Test
  void an_error_ends_the_loop_and_goes_to_fatal() throws Exception {
    CountingLog log = new CountingLog();
    AssertionError broken = new AssertionError("broken");
    started(
        loop("bothy-test-error")
            .log(log)
            .build(
                () -> {
                  throw broken;
                }));
    await("the fatal end", () -> fatal.size() == 1);
    assertThat(fatal).containsExactly(broken);
    assertThat(log.calls).containsExactly("ended AssertionError");
  }

  @Test
  void errors_the_retry_rule_accepts_are_failed_iterations() throws Exception {
    CountingLog log = new CountingLog();
    AtomicInteger calls = new AtomicInteger();
    time.flowing = true;
    started(
        loop("bothy-test-retried-error")
            .log(log)
            .retries(e -> e instanceof StackOverflowError)
            .build(
                () -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new StackOverflowError("deep");
                  }
                  time.flowing = false;
                  return Next.WAIT;
                }));
    await("the iteration after the error", () -> calls.get() == 2);
    time.awaitWaits(1);
    assertThat(log.calls).containsExactly("failing deep PT1M", "recovered");
    assertThat(fatal).isEmpty();
  }

  @Test
  void an_exception_the_retry_rule_refuses_ends_the_loop_and_goes_to_fatal() throws Exception {
    IllegalStateException gap = new IllegalStateException("a hole");
    started(
        loop("bothy-test-refused")
            .retries(e -> false)
            .build(
                () -> {
                  throw gap;
                }));
    await("the fatal end", () -> fatal.size() == 1);
    assertThat(fatal).containsExactly(gap);
  }

  @Test
  void an_interrupt_outside_a_stop_ends_the_loop_and_goes_to_fatal() throws Exception {
    started(
        loop("bothy-test-interrupted")
            .build(
                () -> {
                  Thread.currentThread().interrupt();
                  return Next.WAIT;
                }));
    await("the fatal end", () -> fatal.size() == 1);
    assertThat(fatal.get(0)).isInstanceOf(InterruptedException.class);
  }

  @Test
  void stop_waits_for_the_running_iteration_within_the_budget() throws Exception {
    CountDownLatch inIteration = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    AtomicBoolean interrupted = new AtomicBoolean();
    ServiceLoop loop =
        started(
            loop("bothy-test-stop")
                .build(
                    () -> {
                      calls.incrementAndGet();
                      inIteration.countDown();
                      try {
                        release.await();
                      } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                      }
                      return Next.AGAIN;
                    }));
    assertThat(inIteration.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(() -> loop.stop(INTERVAL));
    time.awaitWaits(5);
    assertThat(stopped).as("the clock has not reached the budget").isNotDone();
    release.countDown();

    assertThat(stopped.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(calls.get()).as("no iteration after the stop").isEqualTo(1);
    assertThat(interrupted.get()).isFalse();
    assertThat(fatal).isEmpty();
  }

  @Test
  void stop_interrupts_an_iteration_past_the_budget_and_reports_nothing() throws Exception {
    CountingLog log = new CountingLog();
    CountDownLatch inIteration = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    ServiceLoop loop =
        started(
            loop("bothy-test-cut")
                .log(log)
                .build(
                    () -> {
                      inIteration.countDown();
                      try {
                        new CountDownLatch(1).await();
                      } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw new IllegalStateException("cut short", e);
                      }
                      return Next.WAIT;
                    }));
    assertThat(inIteration.await(10, TimeUnit.SECONDS)).isTrue();
    time.flowing = true;

    assertThat(loop.stop(INTERVAL)).as("the iteration outlived the budget").isFalse();
    assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(clock.now())
        .as("the stop waited the budget on the clock")
        .isAfterOrEqualTo(T0.plus(INTERVAL));
    time.flowing = false;
    assertThat(loop.stop(INTERVAL)).as("a second stop sees the loop end").isTrue();
    assertThat(log.calls).as("a failure caused by the stop is no failure").isEmpty();
    assertThat(fatal).isEmpty();
  }

  @Test
  void on_stop_unblocks_an_iteration_that_waits_on_something_else() throws Exception {
    CountDownLatch inIteration = new CountDownLatch(1);
    CountDownLatch socket = new CountDownLatch(1);
    ServiceLoop loop =
        started(
            loop("bothy-test-unblock")
                .onStop(socket::countDown)
                .build(
                    () -> {
                      inIteration.countDown();
                      // Like a socket read: deaf to interrupts, ended only by closing it.
                      while (socket.getCount() > 0) {
                        Thread.onSpinWait();
                      }
                      return Next.AGAIN;
                    }));
    assertThat(inIteration.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(loop.stop(INTERVAL)).isTrue();
    assertThat(fatal).isEmpty();
  }

  @Test
  void stop_all_stops_every_loop_together_within_one_budget() throws Exception {
    CountDownLatch bothRunning = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    List<ServiceLoop> pair = new ArrayList<>();
    for (String name : List.of("bothy-test-a", "bothy-test-b")) {
      pair.add(
          started(
              loop(name)
                  .build(
                      () -> {
                        bothRunning.countDown();
                        release.await();
                        return Next.AGAIN;
                      })));
    }
    assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Boolean> stopped =
        CompletableFuture.supplyAsync(() -> ServiceLoop.stopAll(pair, INTERVAL));
    time.awaitWaits(5);
    release.countDown();

    assertThat(stopped.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(fatal).isEmpty();
  }

  @Test
  void a_loop_starts_once_and_a_stop_before_the_start_is_harmless() {
    ServiceLoop never = loop("bothy-test-never").build(() -> Next.WAIT);
    assertThat(never.stop(INTERVAL)).isTrue();

    ServiceLoop loop = started(loop("bothy-test-once").build(() -> Next.WAIT));
    assertThat(loop.name()).isEqualTo("bothy-test-once");
    assertThatThrownBy(loop::start).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ServiceLoop.named("bothy-test-incomplete").build(() -> Next.WAIT))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("every");
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(1);
    }
  }
}
