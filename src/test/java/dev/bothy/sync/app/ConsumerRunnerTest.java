package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.Event;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConsumerRunnerTest {
  private static final Duration LONG_POLL = Duration.ofMinutes(10);
  private static final RoundResult FULL = new RoundResult(RoundResult.Outcome.PROCESSED, 5, true);
  private static final RoundResult SHORT = new RoundResult(RoundResult.Outcome.PROCESSED, 2, false);

  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final FakeWaker waker = new FakeWaker();
  private ConsumerRunner runner;

  @AfterEach
  void stop() {
    if (runner != null) {
      runner.stop(Duration.ofSeconds(5));
    }
    assertThat(fatal).isEmpty();
  }

  /** Rounds from a script; after it, idle rounds. */
  private static final class Script implements Function<ConsumerName, RoundResult> {
    final Deque<Object> outcomes;
    final AtomicInteger calls = new AtomicInteger();

    Script(Object... outcomes) {
      this.outcomes = new ArrayDeque<>(List.of(outcomes));
    }

    @Override
    public synchronized RoundResult apply(ConsumerName name) {
      calls.incrementAndGet();
      Object next = outcomes.isEmpty() ? RoundResult.IDLE : outcomes.poll();
      if (next instanceof RuntimeException e) {
        throw e;
      }
      return (RoundResult) next;
    }
  }

  private static final class FakeWaker implements Waker {
    Runnable onWake;

    @Override
    public void start(Runnable onWake) {
      this.onWake = onWake;
    }

    @Override
    public void close() {}
  }

  private ConsumerRunner start(Script script, Duration poll) {
    runner = new ConsumerRunner(List.of(ConsumerName.WEBHOOKS), script, waker, poll, fatal::add);
    runner.start();
    return runner;
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(5);
    }
  }

  @Test
  void full_batches_drain_without_waiting() throws Exception {
    Script script = new Script(FULL, FULL, SHORT);
    start(script, LONG_POLL);
    await("three rounds ran", () -> script.calls.get() == 3);
    Thread.sleep(200);
    assertThat(script.calls.get()).as("after the short batch it waits").isEqualTo(3);
  }

  @Test
  void after_a_short_idle_locked_or_failed_round_it_waits_for_a_wake() throws Exception {
    Script script =
        new Script(
            SHORT, RoundResult.IDLE, RoundResult.LOCKED, new IllegalStateException("db down"));
    start(script, LONG_POLL);
    for (int expected = 1; expected <= 4; expected++) {
      int e = expected;
      await("round " + e, () -> script.calls.get() == e);
      Thread.sleep(150);
      assertThat(script.calls.get()).as("waits after round " + e).isEqualTo(e);
      waker.onWake.run();
    }
    await("the round after the failure", () -> script.calls.get() == 5);
  }

  @Test
  void an_outage_logs_one_failure_and_one_recovery() throws Exception {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ConsumerRunner.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
        new ch.qos.logback.core.read.ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      Script script =
          new Script(
              new IllegalStateException("database down"),
              new IllegalStateException("database down"),
              new IllegalStateException("database down"),
              SHORT);
      start(script, Duration.ofMillis(20));
      await("the rounds after the outage", () -> script.calls.get() >= 5);
    } finally {
      logger.detachAppender(logs);
    }
    List<String> messages =
        logs.list.stream()
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
  void the_poll_interval_wakes_without_a_notification() throws Exception {
    Script script = new Script();
    start(script, Duration.ofMillis(50));
    await("several polls", () -> script.calls.get() >= 4);
  }

  @Test
  void wake_signals_coalesce() throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Function<ConsumerName, RoundResult> blocking =
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
        };
    runner = new ConsumerRunner(List.of(ConsumerName.PUSH), blocking, waker, LONG_POLL, fatal::add);
    runner.start();
    assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 10; i++) {
      waker.onWake.run();
    }
    release.countDown();
    await("one more round for ten signals", () -> calls.get() == 2);
    Thread.sleep(200);
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void stop_lets_the_running_round_end_and_starts_no_new_one() throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    Function<ConsumerName, RoundResult> slow =
        name -> {
          calls.incrementAndGet();
          inRound.countDown();
          long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
          while (System.nanoTime() < end) {
            Thread.onSpinWait();
          }
          finished.incrementAndGet();
          return FULL;
        };
    runner = new ConsumerRunner(List.of(ConsumerName.PUSH), slow, waker, LONG_POLL, fatal::add);
    runner.start();
    assertThat(inRound.await(5, TimeUnit.SECONDS)).isTrue();
    runner.stop(Duration.ofSeconds(5));
    int after = calls.get();
    assertThat(finished.get()).as("the running round ended").isEqualTo(after);
    Thread.sleep(200);
    assertThat(calls.get()).as("no round after the stop").isEqualTo(after);
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
  void the_names_are_exactly_push_and_webhooks() {
    assertThat(ConsumerName.names())
        .extracting(ConsumerName::value)
        .containsExactly("push", "webhooks");
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
    public java.util.Map<java.util.UUID, Long> numbersOf(List<java.util.UUID> ids, long afterSeq) {
      throw new AssertionError();
    }
  }
}
