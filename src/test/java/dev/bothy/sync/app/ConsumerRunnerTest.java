package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.Event;
import dev.bothy.testing.CapturedLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runner on a settable clock: every wait ends because the test moved the clock or woke the
 * runner, never because wall time passed, so no outcome here depends on a real sleep.
 */
class ConsumerRunnerTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration POLL = Duration.ofMinutes(10);
  private static final RoundResult FULL = new RoundResult(RoundResult.Outcome.PROCESSED, 5, true);
  private static final RoundResult SHORT = new RoundResult(RoundResult.Outcome.PROCESSED, 2, false);

  private final SettableClock clock = new SettableClock(T0);
  private final TestTime time = new TestTime();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final List<ConsumerName> cancelled = new CopyOnWriteArrayList<>();
  private final FakeWaker waker = new FakeWaker();
  private ConsumerRunner runner;

  @AfterEach
  void stop() {
    if (runner != null) {
      time.flowing = true;
      runner.stop(Duration.ofSeconds(5));
    }
    assertThat(fatal).isEmpty();
  }

  /**
   * The pause of the runner's threads. Frozen, it blocks a millisecond at a time and lets the clock
   * decide; flowing, every wait passes at once by moving the clock by the whole wait.
   */
  private final class TestTime implements Pause {
    final AtomicInteger waits = new AtomicInteger();
    volatile boolean flowing;

    @Override
    public void await(Object monitor, Duration atMost) throws InterruptedException {
      waits.incrementAndGet();
      if (flowing) {
        clock.advance(atMost);
      } else {
        monitor.wait(1);
      }
    }

    /** Waits until some thread has entered a wait {@code n} more times. */
    void awaitWaits(int n) throws InterruptedException {
      int target = waits.get() + n;
      ConsumerRunnerTest.await("a wait", () -> waits.get() >= target);
    }
  }

  /** Rounds from a script; after it, idle rounds. Records the waits seen before each round. */
  private final class Script implements Function<ConsumerName, RoundResult> {
    final Deque<Object> outcomes;
    final AtomicInteger calls = new AtomicInteger();
    final List<Integer> waitsBefore = new CopyOnWriteArrayList<>();

    Script(Object... outcomes) {
      this.outcomes = new ArrayDeque<>(List.of(outcomes));
    }

    @Override
    public synchronized RoundResult apply(ConsumerName name) {
      waitsBefore.add(time.waits.get());
      calls.incrementAndGet();
      Object next = outcomes.isEmpty() ? RoundResult.IDLE : outcomes.poll();
      if (next instanceof RuntimeException e) {
        throw e;
      }
      return (RoundResult) next;
    }
  }

  private static final class FakeWaker implements Waker {
    volatile Runnable onWake;

    @Override
    public void start(Runnable onWake) {
      this.onWake = onWake;
    }

    @Override
    public void close() {}
  }

  private ConsumerRunner runner(
      ConsumerName name,
      Function<ConsumerName, RoundResult> rounds,
      java.util.function.Consumer<Throwable> onFatal) {
    return new ConsumerRunner(
        List.of(name), rounds, cancelled::add, waker, POLL, clock, time, onFatal);
  }

  private ConsumerRunner start(Function<ConsumerName, RoundResult> rounds) {
    runner = runner(ConsumerName.WEBHOOKS, rounds, fatal::add);
    runner.start();
    return runner;
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

  /** The consumer threads seen running a round, by the name the loop gave them. */
  private final java.util.Map<String, Thread> roundThreads =
      new java.util.concurrent.ConcurrentHashMap<>();

  private void recordThread() {
    roundThreads.put(Thread.currentThread().getName(), Thread.currentThread());
  }

  private Thread roundThread(String name) {
    return Optional.ofNullable(roundThreads.get(name)).orElseThrow();
  }

  @Test
  void full_batches_drain_without_waiting() throws Exception {
    Script script = new Script(FULL, FULL, SHORT);
    start(script);
    await("three rounds ran", () -> script.calls.get() == 3);
    time.awaitWaits(5);
    assertThat(script.calls.get()).as("after the short batch it waits").isEqualTo(3);
    assertThat(script.waitsBefore)
        .as("no wait between the full batches and the short one")
        .containsOnly(script.waitsBefore.get(0));
  }

  @Test
  void after_a_short_idle_locked_or_failed_round_it_waits_for_a_wake() throws Exception {
    Script script =
        new Script(
            SHORT, RoundResult.IDLE, RoundResult.LOCKED, new IllegalStateException("db down"));
    start(script);
    for (int expected = 1; expected <= 4; expected++) {
      int e = expected;
      await("round " + e, () -> script.calls.get() == e);
      time.awaitWaits(5);
      assertThat(script.calls.get()).as("waits after round " + e).isEqualTo(e);
      waker.onWake.run();
    }
    await("the round after the failure", () -> script.calls.get() == 5);
  }

  @Test
  void the_poll_interval_on_the_clock_wakes_without_a_notification() throws Exception {
    Script script = new Script();
    start(script);
    await("the first round", () -> script.calls.get() == 1);
    time.awaitWaits(5);
    clock.advance(POLL.minusSeconds(1));
    time.awaitWaits(5);
    assertThat(script.calls.get()).as("a second short of the poll").isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    await("the poll", () -> script.calls.get() == 2);
  }

  @Test
  void an_outage_logs_one_failure_and_one_recovery() throws Exception {
    CapturedLog logs = CapturedLog.of(ConsumerRunner.class);
    try {
      // Every retry wait passes on the clock at once.
      time.flowing = true;
      Script script =
          new Script(
              new IllegalStateException("database down"),
              new IllegalStateException("database down"),
              new IllegalStateException("database down"),
              SHORT);
      start(script);
      await("the rounds after the outage", () -> script.calls.get() >= 5);
    } finally {
      logs.close();
    }
    List<String> messages =
        logs.events().stream()
            .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
            .filter(m -> m.startsWith("event consumer"))
            .filter(m -> !m.startsWith("event consumers"))
            .toList();
    assertThat(messages).hasSize(2);
    assertThat(messages.get(0))
        .startsWith("event consumer round failed: bothy.consumer.name=webhooks")
        .contains("error.type=java.lang.IllegalStateException");
    assertThat(messages.get(1)).isEqualTo("event consumer recovered: bothy.consumer.name=webhooks");
  }

  @Test
  void wake_signals_coalesce() throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    start(
        name -> {
          if (calls.incrementAndGet() == 1) {
            inRound.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return RoundResult.IDLE;
        });
    assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 10; i++) {
      waker.onWake.run();
    }
    release.countDown();
    await("one more round for ten signals", () -> calls.get() == 2);
    time.awaitWaits(5);
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void stop_lets_the_running_round_end_and_starts_no_new_one() throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    runner =
        runner(
            ConsumerName.PUSH,
            name -> {
              recordThread();
              calls.incrementAndGet();
              inRound.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              finished.incrementAndGet();
              return FULL;
            },
            fatal::add);
    runner.start();
    assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    Thread stopping = new Thread(() -> runner.stop(Duration.ofMinutes(1)));
    stopping.start();
    time.awaitWaits(5);
    assertThat(stopping.isAlive()).as("the stop waits for the round").isTrue();
    release.countDown();
    stopping.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(stopping.isAlive()).isFalse();
    await("the consumer's thread ended", () -> !roundThread("bothy-consumer-push").isAlive());
    assertThat(calls.get()).as("no round after the full batch: the stop came first").isEqualTo(1);
    assertThat(finished.get()).isEqualTo(1);
    assertThat(cancelled).as("the round ended within the budget").isEmpty();
    runner = null;
  }

  @Test
  void a_round_still_running_when_the_budget_runs_out_is_cancelled_in_the_database()
      throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    CountDownLatch cancel = new CountDownLatch(1);
    AtomicInteger rolledBack = new AtomicInteger();
    runner =
        new ConsumerRunner(
            List.of(ConsumerName.PUSH),
            name -> {
              recordThread();
              inRound.countDown();
              // Like a thread blocked on its database socket: an interrupt does not end the wait,
              // only the cancel on the server does.
              while (true) {
                try {
                  if (cancel.await(10, TimeUnit.SECONDS)) {
                    rolledBack.incrementAndGet();
                    throw new IllegalStateException("canceling statement due to user request");
                  }
                } catch (InterruptedException e) {
                  // ignored, as a socket read ignores it
                }
              }
            },
            name -> {
              cancelled.add(name);
              cancel.countDown();
            },
            waker,
            POLL,
            clock,
            time,
            fatal::add);
    runner.start();
    assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    Thread stopping = new Thread(() -> runner.stop(Duration.ofSeconds(30)));
    stopping.start();
    time.awaitWaits(5);
    assertThat(cancelled).as("within the budget nothing is cancelled").isEmpty();
    clock.advance(Duration.ofSeconds(30));
    stopping.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(stopping.isAlive()).as("the stop ends with its budget").isFalse();
    assertThat(cancelled).containsExactly(ConsumerName.PUSH);
    await("the cancelled round ended", () -> !roundThread("bothy-consumer-push").isAlive());
    assertThat(rolledBack.get()).isEqualTo(1);
    runner = null;
  }

  /** Where a consumer's thread is when the stray interrupt comes. */
  enum InterruptedIn {
    /** Between rounds, in its wait. */
    WAIT,
    /** In a round, which fails with the interrupt flag set, as the unit of work leaves it. */
    ROUND
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(InterruptedIn.class)
  void a_stray_interrupt_outside_a_stop_ends_the_process_with_status_1(InterruptedIn where)
      throws Exception {
    List<Integer> exits = new CopyOnWriteArrayList<>();
    Lifecycle lifecycle = new Lifecycle(Duration.ofSeconds(30), exits::add, System::nanoTime);
    CountDownLatch inRound = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    runner =
        runner(
            ConsumerName.WEBHOOKS,
            name -> {
              recordThread();
              calls.incrementAndGet();
              if (where == InterruptedIn.ROUND) {
                inRound.countDown();
                try {
                  new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("unit of work interrupted", e);
                }
              }
              return RoundResult.IDLE;
            },
            lifecycle::fail);
    runner.start();
    if (where == InterruptedIn.ROUND) {
      assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    } else {
      await("the first round", () -> calls.get() == 1);
      time.awaitWaits(5);
    }
    roundThread("bothy-consumer-webhooks").interrupt();
    await("the process exits", () -> !exits.isEmpty());
    assertThat(exits).containsExactly(1);
    assertThat(calls.get()).as("no round after the interrupt").isEqualTo(1);
    runner = null;
  }

  @Test
  void registration_refuses_unknown_names_null_handlers_duplicates_and_late_ones() {
    ConsumerService service =
        new ConsumerService(new NoUnitOfWork(), new NoCursors(), new NoEvents(), 10);
    assertThatThrownBy(() -> service.register(new ConsumerName("email"), e -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown consumer name email");
    assertThatThrownBy(() -> service.register(ConsumerName.PUSH, null))
        .isInstanceOf(IllegalArgumentException.class);
    service.register(ConsumerName.PUSH, e -> {});
    assertThatThrownBy(() -> service.register(ConsumerName.PUSH, e -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("registered twice");
    assertThat(service.freeze()).containsExactly(ConsumerName.PUSH);
    assertThatThrownBy(() -> service.register(ConsumerName.WEBHOOKS, e -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("have started");
  }

  @Test
  void the_names_are_exactly_push_webhooks_and_bus() {
    assertThat(ConsumerName.names())
        .extracting(ConsumerName::value)
        .containsExactly("push", "webhooks", "bus");
    assertThat(new ConsumerName("webhooks").valid()).isTrue();
    assertThat(new ConsumerName("Webhooks").valid()).isFalse();
  }

  /** Registration needs no database: these fail if anything reaches them. */
  private static final class NoUnitOfWork implements dev.bothy.kernel.txn.UnitOfWork {
    @Override
    public <T> T run(dev.bothy.kernel.txn.Work<T> work) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public <T> T runStatement(dev.bothy.kernel.txn.Work<T> work) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public <T> T join(dev.bothy.kernel.txn.Work<T> work) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public dev.bothy.kernel.txn.Phase currentPhase() {
      throw new AssertionError("no unit expected");
    }

    @Override
    public boolean inUnit() {
      return false;
    }

    @Override
    public <T> java.util.Optional<T> get(dev.bothy.kernel.txn.TxKey<T> key) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public <T> T computeIfAbsent(
        dev.bothy.kernel.txn.TxKey<T> key, java.util.function.Supplier<T> create) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public <T> void put(dev.bothy.kernel.txn.TxKey<T> key, T value) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public void afterCommit(Runnable callback) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public void onCompletion(Runnable callback) {
      throw new AssertionError("no unit expected");
    }

    @Override
    public void cancelStatement(Thread thread) {
      throw new AssertionError("no unit expected");
    }
  }

  private static final class NoCursors implements ConsumerCursorRepository {
    @Override
    public void ensureAtHead(ConsumerName name) {
      throw new AssertionError();
    }

    @Override
    public java.util.OptionalLong lock(ConsumerName name) {
      throw new AssertionError();
    }

    @Override
    public boolean exists(ConsumerName name) {
      throw new AssertionError();
    }

    @Override
    public int advance(ConsumerName name, long lastSeq) {
      throw new AssertionError();
    }

    @Override
    public List<Cursor> list() {
      throw new AssertionError();
    }

    @Override
    public java.util.Optional<java.time.Instant> oldestAfter(long afterSeq) {
      throw new AssertionError();
    }
  }

  private static final class NoEvents implements EventRepository {
    @Override
    public PreparedInsert prepareInsert(List<PendingEvent> events) {
      throw new AssertionError();
    }

    @Override
    public long head() {
      throw new AssertionError();
    }

    @Override
    public long minRetained() {
      throw new AssertionError();
    }

    @Override
    public List<Event> readAfter(long afterSeq, int limit) {
      throw new AssertionError();
    }

    @Override
    public List<Event> readNumbers(long[] seqs) {
      throw new AssertionError();
    }

    @Override
    public java.util.Map<java.util.UUID, Long> numbersOf(List<java.util.UUID> ids, long afterSeq) {
      throw new AssertionError();
    }
  }
}
