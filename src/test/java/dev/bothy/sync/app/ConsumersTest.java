package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.sync.domain.ConsumerGap;
import dev.bothy.testing.CapturedLog;
import dev.bothy.testing.ConsumerFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ConsumersTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration LONG_POLL = Duration.ofMinutes(10);

  private final List<ConsumerRunner> runners = new ArrayList<>();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private ConsumerFixture worker;

  @BeforeEach
  void clean() throws SQLException {
    owner("DELETE FROM jobs");
    owner("DELETE FROM event_consumer_cursors");
    worker = new ConsumerFixture(PG.app(), 10);
  }

  @AfterEach
  void stop() throws InterruptedException {
    runners.forEach(r -> r.stop(Duration.ofSeconds(5)));
    assertThat(fatal).isEmpty();
    // A closed connection's backend outlives close() a little: the next test's awaitListener
    // must not find this test's listener.
    await(
        "the waker's connections are gone",
        () ->
            quietly(
                () ->
                    superuserScalar(
                            "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                                + ListenerWaker.APPLICATION_NAME
                                + "'")
                        == 0));
  }

  private static void owner(String sql) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static void superuser(String sql) throws SQLException {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long scalar(String sql) throws SQLException {
    return PgExtension.scalar(PG.owner(), sql);
  }

  /** A scalar as the superuser, who sees the state of every backend in pg_stat_activity. */
  private static long superuserScalar(String sql) throws SQLException {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Map<Long, Long> jobsPerSeq() throws SQLException {
    return ConsumerFixture.jobsPerSeq(PG.owner());
  }

  private static long cursor(ConsumerName name) throws SQLException {
    return scalar("SELECT last_seq FROM event_consumer_cursors WHERE name = '" + name + "'");
  }

  private static long head() throws SQLException {
    return scalar("SELECT coalesce(max(seq), 0) FROM event_log");
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    await(what, Duration.ofSeconds(30), condition);
  }

  private static void await(String what, Duration bound, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  private static boolean quietly(SqlCheck check) {
    try {
      return check.get();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @FunctionalInterface
  private interface SqlCheck {
    boolean get() throws SQLException;
  }

  /** Every seq in (from, head] has exactly two probe jobs, and no other seq has any. */
  private static void assertExactlyTwoJobsPerEvent(long from) throws SQLException {
    long head = head();
    Map<Long, Long> perSeq = jobsPerSeq();
    for (long seq = from + 1; seq <= head; seq++) {
      assertThat(perSeq.get(seq)).as("jobs of event " + seq).isEqualTo(2L);
    }
    assertThat(perSeq.keySet()).allSatisfy(s -> assertThat(s).isBetween(from + 1, head));
  }

  private ConsumerRunner runner(ConsumerFixture w, Waker waker, Duration poll) {
    ConsumerRunner r =
        new ConsumerRunner(
            w.consumers.freeze(),
            w.consumers::round,
            w.consumers::cancelRound,
            waker,
            poll,
            dev.bothy.kernel.Clock.system(),
            dev.bothy.platform.lifecycle.Pause.real(),
            fatal::add);
    runners.add(r);
    return r;
  }

  private static Waker silent() {
    return new Waker() {
      @Override
      public void start(Runnable onWake) {}

      @Override
      public void close() {}
    };
  }

  private ListenerWaker listening() {
    return new ListenerWaker(
        new PoolSettings(
            PG.jdbcUrl(),
            "bothy_app",
            null,
            1,
            Duration.ofSeconds(5),
            ListenerWaker.APPLICATION_NAME),
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        fatal::add);
  }

  @Test
  void the_cursor_table_has_the_shape_of_the_data_model_and_bothy_app_cannot_delete()
      throws Exception {
    owner("INSERT INTO event_consumer_cursors (name) VALUES ('push'), ('webhooks')");
    assertThat(scalar("SELECT count(*) FROM event_consumer_cursors WHERE last_seq = 0"))
        .isEqualTo(2);
    assertThatThrownBy(() -> owner("INSERT INTO event_consumer_cursors (name) VALUES ('email')"))
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"));
    try (Connection c = PG.app().getConnection();
        Statement st = c.createStatement()) {
      assertThatThrownBy(() -> st.execute("DELETE FROM event_consumer_cursors"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
    }
  }

  @Test
  void only_a_round_that_read_events_opens_a_span() throws Exception {
    List<String> spans = new java.util.concurrent.CopyOnWriteArrayList<>();
    dev.bothy.sync.RoundTracer tracer =
        new dev.bothy.sync.RoundTracer() {
          @Override
          public <T> T round(String consumer, java.util.concurrent.Callable<T> round)
              throws Exception {
            spans.add(consumer);
            return round.call();
          }
        };
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();

    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS, tracer)).isEqualTo(RoundResult.IDLE);
    assertThat(spans).as("an idle round is a poll: no span").isEmpty();

    worker.log.append(ConsumerFixture.ALEX, 2);
    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS, tracer).processed()).isEqualTo(2);
    assertThat(spans).containsExactly("webhooks");
    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS, tracer)).isEqualTo(RoundResult.IDLE);
    assertThat(spans).containsExactly("webhooks");
  }

  @Test
  void ensure_starts_a_new_consumer_at_the_head_and_a_second_ensure_changes_nothing()
      throws Exception {
    worker.log.append(ConsumerFixture.ALEX, 3);
    long before = head();
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(before);
    assertThat(scalar("SELECT count(*) FROM event_consumer_cursors"))
        .as("push has no row")
        .isEqualTo(1);
    worker.log.append(ConsumerFixture.SAM, 2);
    worker.consumers.ensure();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(before);

    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(2);
    assertExactlyTwoJobsPerEvent(before);
    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS)).isEqualTo(RoundResult.IDLE);
  }

  @Test
  void jobs_and_cursor_commit_together_and_a_locked_row_ends_a_round_at_once() throws Exception {
    CountDownLatch inserted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e -> {
              inserted.countDown();
              release.await();
            }));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 1);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      Future<RoundResult> round =
          threads.submit(() -> worker.consumers.round(ConsumerName.WEBHOOKS));
      assertThat(inserted.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(jobsPerSeq()).as("the jobs are not visible before the commit").isEmpty();
      assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);

      ConsumerFixture other = new ConsumerFixture(PG.pool("bothy_app", 2), 10);
      other.consumers.register(ConsumerName.WEBHOOKS, other.probe(e -> {}));
      long began = System.nanoTime();
      assertThat(other.consumers.round(ConsumerName.WEBHOOKS)).isEqualTo(RoundResult.LOCKED);
      assertThat(Duration.ofNanos(System.nanoTime() - began))
          .as("far below database.lockTimeout")
          .isLessThan(Duration.ofSeconds(2));

      release.countDown();
      assertThat(round.get(10, TimeUnit.SECONDS).processed()).isEqualTo(1);
      assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start + 1);
      assertExactlyTwoJobsPerEvent(start);
    } finally {
      release.countDown();
      threads.shutdownNow();
    }
  }

  @Test
  void two_workers_in_parallel_create_every_job_exactly_once() throws Exception {
    ConsumerFixture second = new ConsumerFixture(PG.pool("bothy_app", 4), 10);
    AtomicInteger locked = new AtomicInteger();
    CountDownLatch overlap = new CountDownLatch(1);
    for (ConsumerFixture w : List.of(worker, second)) {
      w.consumers.register(
          ConsumerName.WEBHOOKS,
          w.probe(
              e -> {
                // Hold the first round until the other worker found the row locked.
                if (overlap.getCount() > 0) {
                  overlap.await(200, TimeUnit.MILLISECONDS);
                }
              }));
    }
    worker.consumers.ensure();
    second.consumers.ensure();
    long start = head();
    for (ConsumerFixture w : List.of(worker, second)) {
      ConsumerRunner r =
          new ConsumerRunner(
              w.consumers.freeze(),
              name -> {
                RoundResult result = w.consumers.round(name);
                if (result == RoundResult.LOCKED) {
                  locked.incrementAndGet();
                  overlap.countDown();
                }
                return result;
              },
              w.consumers::cancelRound,
              listening(),
              Duration.ofMillis(50),
              dev.bothy.kernel.Clock.system(),
              dev.bothy.platform.lifecycle.Pause.real(),
              fatal::add);
      runners.add(r);
      r.start();
    }
    ExecutorService writers = Executors.newFixedThreadPool(3);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      done.add(
          writers.submit(
              () -> {
                for (int u = 0; u < 30; u++) {
                  worker.log.append(Ids.newId(), 1 + ThreadLocalRandom.current().nextInt(3));
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    writers.shutdown();
    long end = head();
    await("the cursor reached the head", () -> quietly(() -> cursor(ConsumerName.WEBHOOKS) == end));
    assertExactlyTwoJobsPerEvent(start);
    assertThat(locked.get()).as("the workers overlapped at least once").isPositive();
  }

  @Test
  void a_crash_in_the_middle_of_a_round_creates_no_duplicate_and_loses_no_event() throws Exception {
    AtomicLong backend = new AtomicLong();
    AtomicInteger mode = new AtomicInteger();
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch cancellable = new CountDownLatch(1);
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e -> {
              switch (mode.get()) {
                case 1 -> blockInPgSleep(backend, blocked);
                case 2 -> throw new IllegalStateException("Robin's handler failed");
                case 3 -> throw new StackOverflowError("deep");
                case 4 -> blockInPgSleep(backend, cancellable);
                default -> {}
              }
            }));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 4);

    mode.set(1);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    Future<RoundResult> round = threads.submit(() -> worker.consumers.round(ConsumerName.WEBHOOKS));
    assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
    superuser("SELECT pg_terminate_backend(" + backend.get() + ")");
    assertThatThrownBy(() -> round.get(30, TimeUnit.SECONDS)).isNotNull();
    threads.shutdownNow();
    assertThat(jobsPerSeq()).as("terminated backend: nothing committed").isEmpty();

    mode.set(2);
    assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
        .hasMessageContaining("Robin's handler failed");
    mode.set(3);
    assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
        .isInstanceOf(StackOverflowError.class);
    assertThat(jobsPerSeq()).as("failed rounds: nothing committed").isEmpty();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);

    // Context cancelled: the round's statement is cancelled on the server from another thread.
    mode.set(4);
    ExecutorService cancelThread = Executors.newSingleThreadExecutor();
    try {
      Future<RoundResult> cancelled =
          cancelThread.submit(() -> worker.consumers.round(ConsumerName.WEBHOOKS));
      assertThat(cancellable.await(10, TimeUnit.SECONDS)).isTrue();
      awaitSleepOnTheServer(backend);
      worker.consumers.cancelRound(ConsumerName.WEBHOOKS);
      assertThatThrownBy(() -> cancelled.get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(java.sql.SQLException.class);
    } finally {
      cancelThread.shutdownNow();
    }
    assertThat(jobsPerSeq()).as("cancelled round: nothing committed").isEmpty();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);

    mode.set(0);
    ConsumerFixture restarted = new ConsumerFixture(PG.pool("bothy_app", 2), 10);
    restarted.consumers.register(ConsumerName.WEBHOOKS, restarted.probe(e -> {}));
    assertThat(restarted.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(4);
    assertExactlyTwoJobsPerEvent(start);
  }

  @Test
  void a_notification_wakes_the_consumer_without_waiting_for_the_poll() throws Exception {
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    ConsumerRunner r = runner(worker, listening(), LONG_POLL);
    r.start();
    long listener = awaitListener(0);
    long start = head();
    // The first event may still meet the wake of the listener's connect; once its jobs are in,
    // that wake is used up, and consumer.pollInterval is far away: only a notification is left.
    worker.log.append(ConsumerFixture.SAM, 1);
    await("the jobs of the first event", () -> quietly(() -> jobsPerSeq().size() == 1));
    worker.log.append(ConsumerFixture.ALEX, 1);
    await(
        "the jobs of the second event",
        Duration.ofSeconds(10),
        () -> quietly(() -> jobsPerSeq().size() == 2));
    assertExactlyTwoJobsPerEvent(start);
    assertThat(awaitListener(0)).as("the listener never reconnected").isEqualTo(listener);
  }

  /**
   * Waits until the waker's connection listens with a backend other than {@code not}, as the
   * superuser sees it, and returns that backend's pid.
   */
  private static long awaitListener(long not) throws InterruptedException, SQLException {
    String sql =
        "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = '"
            + ListenerWaker.APPLICATION_NAME
            + "' AND query LIKE 'LISTEN%' AND pid <> "
            + not;
    await("the waker listens", () -> quietly(() -> superuserScalar(sql) != 0));
    return superuserScalar(sql);
  }

  @Test
  void the_poll_wakes_the_consumer_without_a_notification() throws Exception {
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    ConsumerRunner r = runner(worker, silent(), Duration.ofMillis(100));
    r.start();
    long start = head();
    worker.log.append(ConsumerFixture.SAM, 1);
    await("the jobs of the event", () -> quietly(() -> jobsPerSeq().size() == 1));
    assertExactlyTwoJobsPerEvent(start);
  }

  @Test
  void losing_the_listen_connection_loses_nothing() throws Exception {
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    long start = head();
    ConsumerRunner r = runner(worker, listening(), LONG_POLL);
    r.start();
    long listener = awaitListener(0);
    for (int i = 0; i < 4; i++) {
      worker.log.append(Ids.newId(), 2);
      superuser("SELECT pg_terminate_backend(" + listener + ")");
      listener = awaitListener(listener);
    }
    worker.log.append(Ids.newId(), 1);
    long end = head();
    await("the cursor reached the head", () -> quietly(() -> cursor(ConsumerName.WEBHOOKS) == end));
    assertExactlyTwoJobsPerEvent(start);
  }

  @Test
  void a_hole_fails_the_round_and_leaves_cursor_and_jobs_unchanged() throws Exception {
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 1);
    // A row two numbers past the head: a hole no retention explains.
    owner(
        "INSERT INTO event_log (seq, id, type, occurred_at, resource_type, resource_id, payload)"
            + " VALUES ("
            + (start + 3)
            + ", gen_random_uuid(), 'settings.updated', now(), 'user', gen_random_uuid(),"
            + " '{\"changedKeys\":[\"k\"]}')");
    try {
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
            .isInstanceOf(ConsumerGap.class)
            .hasMessageContaining("expected event " + (start + 2) + " in the batch");
      }
      assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);
      assertThat(jobsPerSeq()).isEmpty();
    } finally {
      owner("DELETE FROM event_log WHERE seq = " + (start + 3));
    }
    assertThat(worker.consumers.round(ConsumerName.WEBHOOKS).processed())
        .as("the hole closed, the consumer goes on")
        .isEqualTo(1);
    assertExactlyTwoJobsPerEvent(start);
  }

  @Test
  void a_round_that_appends_an_event_rolls_back() throws Exception {
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e ->
                worker.log.appender.append(
                    dev.bothy.testing.EventLogFixture.drafts(Ids.newId(), 1))));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 1);
    assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
        .hasMessageContaining("a round may insert jobs only");
    assertThat(head()).isEqualTo(start + 1);
    assertThat(jobsPerSeq()).isEmpty();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);
  }

  @Test
  void consumers_are_independent_and_the_states_show_each_lag() throws Exception {
    worker.consumers.register(
        ConsumerName.PUSH,
        e -> {
          throw new IllegalStateException("push is down");
        });
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    long start = head();
    ConsumerRunner r = runner(worker, listening(), Duration.ofMillis(100));
    r.start();
    worker.log.append(ConsumerFixture.ALEX, 3);
    long end = head();
    await("webhooks reached the head", () -> quietly(() -> cursor(ConsumerName.WEBHOOKS) == end));
    Map<ConsumerName, ConsumerState> states = new HashMap<>();
    worker.consumers.states().forEach(s -> states.put(s.name(), s));
    assertThat(states.get(ConsumerName.WEBHOOKS).lag()).isZero();
    assertThat(states.get(ConsumerName.WEBHOOKS).oldestPendingAt()).isEmpty();
    assertThat(states.get(ConsumerName.PUSH).lag()).isEqualTo(end - start);
    assertThat(states.get(ConsumerName.PUSH).oldestPendingAt()).isPresent();
    assertThat(cursor(ConsumerName.PUSH)).isEqualTo(start);
  }

  @Test
  void events_lost_to_retention_are_skipped_and_logged() throws Exception {
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 5);
    // Retention removes a prefix of the log (whole partitions); the owner removes the same here.
    owner("DELETE FROM event_log WHERE seq <= " + (start + 2));
    CapturedLog logs = CapturedLog.of(ConsumerService.class);
    try {
      RoundResult result = worker.consumers.round(ConsumerName.WEBHOOKS);
      assertThat(result.processed()).isEqualTo(3);
    } finally {
      logs.close();
    }
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start + 5);
    Map<Long, Long> perSeq = jobsPerSeq();
    assertThat(perSeq).containsOnlyKeys(start + 3, start + 4, start + 5);
    assertThat(logs.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.ERROR);
              assertThat(e.getFormattedMessage())
                  .startsWith("event consumer lost events to retention")
                  .contains("bothy.consumer.name=webhooks")
                  .contains("bothy.event.seq=" + (start + 3));
            });
  }

  @Test
  void stop_lets_a_round_finish_within_the_budget_and_rolls_back_one_past_it() throws Exception {
    CountDownLatch inRound = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger mode = new AtomicInteger(1);
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e -> {
              if (mode.get() == 1) {
                inRound.countDown();
                release.await();
              }
            }));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 1);
    // The stop's budget runs on a clock that stands still: the round ends within it for sure.
    dev.bothy.kernel.SettableClock still =
        new dev.bothy.kernel.SettableClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
    AtomicInteger waits = new AtomicInteger();
    ConsumerRunner first =
        new ConsumerRunner(
            worker.consumers.freeze(),
            worker.consumers::round,
            worker.consumers::cancelRound,
            silent(),
            LONG_POLL,
            still,
            (monitor, atMost) -> {
              waits.incrementAndGet();
              monitor.wait(1);
            },
            fatal::add);
    first.start();
    assertThat(inRound.await(10, TimeUnit.SECONDS)).isTrue();
    Thread stopping = new Thread(() -> first.stop(Duration.ofSeconds(5)));
    stopping.start();
    int before = waits.get();
    await("the stop waits for the round", () -> waits.get() > before + 5);
    assertThat(cursor(ConsumerName.WEBHOOKS)).as("not before the release").isEqualTo(start);
    release.countDown();
    stopping.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(stopping.isAlive()).isFalse();
    assertThat(cursor(ConsumerName.WEBHOOKS))
        .as("released within the budget: committed")
        .isEqualTo(start + 1);
    assertExactlyTwoJobsPerEvent(start);

    // Past the budget: the blocked handler is interrupted and the round rolls back.
    CountDownLatch inSecond = new CountDownLatch(1);
    AtomicLong secondBackend = new AtomicLong();
    ConsumerFixture again = new ConsumerFixture(PG.pool("bothy_app", 2), 10);
    again.consumers.register(
        ConsumerName.WEBHOOKS,
        again.probe(
            e -> {
              if (mode.get() == 1) {
                secondBackend.set(
                    dev.bothy.platform.pg.PgTx.dsl()
                        .resultQuery("select pg_backend_pid()")
                        .fetchOne(0, Long.class));
                inSecond.countDown();
                new CountDownLatch(1).await();
              }
            }));
    worker.log.append(ConsumerFixture.SAM, 2);
    ConsumerRunner second = runner(again, silent(), Duration.ofMillis(50));
    second.start();
    assertThat(inSecond.await(10, TimeUnit.SECONDS)).isTrue();
    second.stop(Duration.ofMillis(100));
    // The stop returns past its budget without waiting for the rollback: until the round's
    // backend leaves its transaction, it still holds the cursor's row.
    await(
        "the interrupted round's backend left its transaction",
        () ->
            quietly(
                () ->
                    superuserScalar(
                            "SELECT count(*) FROM pg_stat_activity WHERE pid = "
                                + secondBackend.get()
                                + " AND state IS DISTINCT FROM 'idle'")
                        == 0));
    assertThat(jobsPerSeq()).as("the interrupted round rolled back").hasSize(1);
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start + 1);

    mode.set(0);
    ConsumerFixture restarted = new ConsumerFixture(PG.pool("bothy_app", 2), 10);
    restarted.consumers.register(ConsumerName.WEBHOOKS, restarted.probe(e -> {}));
    assertThat(restarted.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(2);
    assertExactlyTwoJobsPerEvent(start);
  }

  @Test
  void a_loss_to_retention_is_logged_once_and_only_after_its_round_committed() throws Exception {
    AtomicInteger mode = new AtomicInteger(1);
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e -> {
              if (mode.get() == 1) {
                throw new IllegalStateException("Sam's handler failed");
              }
              if (mode.get() == 2) {
                // A serialization failure: the unit of work retries the whole round at once.
                mode.set(0);
                dev.bothy.platform.pg.PgTx.dsl()
                    .execute("do $$ begin raise exception using errcode = '40001'; end $$");
              }
            }));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 5);
    owner("DELETE FROM event_log WHERE seq <= " + (start + 2));
    CapturedLog logs = CapturedLog.of(ConsumerService.class);
    try {
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
            .hasMessageContaining("Sam's handler failed");
      }
      assertThat(logs.events()).as("a round that rolled back logs no loss").isEmpty();
      mode.set(2);
      assertThat(worker.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(3);
      assertThat(worker.consumers.round(ConsumerName.WEBHOOKS)).isEqualTo(RoundResult.IDLE);
    } finally {
      logs.close();
    }
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start + 5);
    assertThat(jobsPerSeq()).containsOnlyKeys(start + 3, start + 4, start + 5);
    assertThat(logs.events())
        .as("one line, after the commit, although a retried attempt planned the same skip")
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.ERROR);
              assertThat(e.getFormattedMessage())
                  .startsWith("event consumer lost events to retention")
                  .contains("bothy.consumer.name=webhooks")
                  .contains("bothy.event.seq=" + (start + 3))
                  .contains("=" + (start + 1))
                  .contains("=" + (start + 2));
            });
  }

  /** The three ways a round fails in the middle, after its handler wrote jobs. */
  enum Failure {
    /** The handler throws after its insert. */
    HANDLER_THROWS,
    /** The round's backend is terminated once the phase hook {@code jobs.insert} ran. */
    BACKEND_TERMINATED,
    /** The runner stops while the round runs, and its stop budget runs out. */
    STOPPED
  }

  private static final dev.bothy.kernel.txn.TxKey<Boolean> BLOCK_AFTER_JOBS_INSERT =
      dev.bothy.kernel.txn.TxKey.of("test.block_after_jobs_insert");

  /** What another connection sees after the failed round: the probe jobs and the cursor. */
  private record Visible(Map<Long, Long> jobs, long cursor) {}

  /**
   * Fails a round of three events the given way, with the probe writing its jobs in the round
   * ({@code elsewhere} null) or through another worker's connection, and returns what is visible
   * afterwards.
   */
  private Visible failRound(Failure failure, ConsumerFixture elsewhere) throws Exception {
    AtomicLong backend = new AtomicLong();
    CountDownLatch blocked = new CountDownLatch(1);
    // Registered after jobs.insert, so it runs once that hook has written what the unit queued.
    worker.log.hooks.register(
        dev.bothy.kernel.txn.Phase.SYNC,
        "test.block_after_jobs_insert",
        () -> {
          if (worker.log.uow.get(BLOCK_AFTER_JOBS_INSERT).isPresent()) {
            blockInPgSleep(backend, blocked);
          }
        });
    dev.bothy.sync.ConsumerHandler after =
        e -> {
          switch (failure) {
            case HANDLER_THROWS -> throw new IllegalStateException("Alex's handler failed");
            case BACKEND_TERMINATED -> worker.log.uow.put(BLOCK_AFTER_JOBS_INSERT, true);
            case STOPPED -> blockInPgSleep(backend, blocked);
          }
        };
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        elsewhere == null
            ? worker.probeTx(after)
            : ConsumerFixture.probeElsewhere(elsewhere, after));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.ALEX, 3);
    switch (failure) {
      case HANDLER_THROWS ->
          assertThatThrownBy(() -> worker.consumers.round(ConsumerName.WEBHOOKS))
              .hasMessageContaining("Alex's handler failed");
      case BACKEND_TERMINATED -> {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
          Future<RoundResult> round =
              thread.submit(() -> worker.consumers.round(ConsumerName.WEBHOOKS));
          assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
          superuser("SELECT pg_terminate_backend(" + backend.get() + ")");
          assertThatThrownBy(() -> round.get(30, TimeUnit.SECONDS)).isNotNull();
        } finally {
          thread.shutdownNow();
        }
      }
      case STOPPED -> {
        ConsumerRunner r = runner(worker, silent(), LONG_POLL);
        r.start();
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        awaitSleepOnTheServer(backend);
        r.stop(Duration.ofMillis(100));
        // At once: the statement is cancelled on the server, not left to run after the stop.
        await(
            "the stopped round's backend left its transaction",
            Duration.ofSeconds(5),
            () ->
                quietly(
                    () ->
                        superuserScalar(
                                "SELECT count(*) FROM pg_stat_activity WHERE pid = "
                                    + backend.get()
                                    + " AND state IS DISTINCT FROM 'idle'")
                            == 0));
      }
    }
    assertThat(cursor(ConsumerName.WEBHOOKS)).as("the cursor did not move").isEqualTo(start);
    return new Visible(jobsPerSeq(), cursor(ConsumerName.WEBHOOKS));
  }

  /**
   * Waits until the backend runs the handler's {@code pg_sleep}: the handler counts its latch down
   * just before it sends the statement, and a cancel request that reaches the backend before the
   * statement does is ignored, which would leave the sleep to run its minute.
   */
  private static void awaitSleepOnTheServer(AtomicLong backend) throws InterruptedException {
    String sql =
        "SELECT count(*) FROM pg_stat_activity WHERE pid = "
            + backend.get()
            + " AND state = 'active' AND query LIKE 'select pg_sleep%'";
    await(
        "the handler's pg_sleep runs on the server",
        () -> quietly(() -> superuserScalar(sql) == 1));
  }

  /** Records the unit's backend, then blocks in a statement, as a slow handler would. */
  private static void blockInPgSleep(AtomicLong backend, CountDownLatch blocked) {
    backend.set(
        dev.bothy.platform.pg.PgTx.dsl()
            .resultQuery("select pg_backend_pid()")
            .fetchOne(0, Long.class));
    blocked.countDown();
    dev.bothy.platform.pg.PgTx.dsl().execute("select pg_sleep(60)");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Failure.class)
  void jobs_written_in_the_round_vanish_with_a_round_that_fails_in_the_middle(Failure failure)
      throws Exception {
    long start = head();
    Visible after = failRound(failure, null);
    assertThat(after.jobs()).as("no job of the failed round is visible").isEmpty();
    assertThat(after.cursor()).isEqualTo(start);

    ConsumerFixture restarted = new ConsumerFixture(PG.pool("bothy_app", 2), 10);
    restarted.consumers.register(ConsumerName.WEBHOOKS, restarted.probeTx(e -> {}));
    assertThat(restarted.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(3);
    assertExactlyTwoJobsPerEvent(start);
  }

  /**
   * The negative control of the test above: the same failures with a probe that writes its jobs
   * through another connection. The check must see them, or it could not fail.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Failure.class)
  void the_atomicity_check_detects_jobs_written_outside_the_round(Failure failure)
      throws Exception {
    long start = head();
    Visible after = failRound(failure, new ConsumerFixture(PG.pool("bothy_app", 2), 10));
    // The handler fails or blocks at the first event, except after jobs.insert (all three).
    assertThat(after.jobs())
        .as("the leaked jobs are visible to the check")
        .containsEntry(start + 1, 2L);
  }

  @Test
  void a_stop_gets_the_rest_of_the_total_and_then_cancels_a_round_blocked_in_pg_sleep()
      throws Exception {
    AtomicLong backend = new AtomicLong();
    CountDownLatch blocked = new CountDownLatch(1);
    worker.consumers.register(
        ConsumerName.WEBHOOKS, worker.probeTx(e -> blockInPgSleep(backend, blocked)));
    worker.consumers.ensure();
    long start = head();
    worker.log.append(ConsumerFixture.SAM, 2);
    ConsumerRunner r = runner(worker, silent(), LONG_POLL);
    List<Integer> exits = new CopyOnWriteArrayList<>();
    Duration total = Duration.ofSeconds(2);
    dev.bothy.platform.lifecycle.Lifecycle lifecycle =
        new dev.bothy.platform.lifecycle.Lifecycle(total, exits::add, System::nanoTime);
    List<Duration> given = new CopyOnWriteArrayList<>();
    lifecycle.onStopWithRest(
        dev.bothy.platform.lifecycle.StopPhase.CONSUMERS,
        "event_consumers",
        budget -> {
          given.add(budget);
          r.stop(budget);
        });
    r.start();
    assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
    awaitSleepOnTheServer(backend);

    long began = System.nanoTime();
    lifecycle.stop();
    Duration took = Duration.ofNanos(System.nanoTime() - began);

    assertThat(given)
        .singleElement()
        .satisfies(b -> assertThat(b).isBetween(total.minusMillis(500), total));
    assertThat(took).as("the stop keeps to shutdown.totalTimeout").isLessThan(total.plusSeconds(1));
    // Far below the handler's 60 s sleep, so only a cancelled statement gets there in time.
    await(
        "the round's backend left its transaction at once",
        Duration.ofSeconds(5),
        () ->
            quietly(
                () ->
                    superuserScalar(
                            "SELECT count(*) FROM pg_stat_activity WHERE pid = "
                                + backend.get()
                                + " AND state IS DISTINCT FROM 'idle'")
                        == 0));
    assertThat(jobsPerSeq()).as("the cancelled round rolled back").isEmpty();
    assertThat(cursor(ConsumerName.WEBHOOKS)).isEqualTo(start);
    assertThat(exits).as("a stop is no failure").isEmpty();
  }

  @Test
  void a_missing_cursor_row_fails_the_round_instead_of_looking_locked() {
    worker.consumers.register(ConsumerName.PUSH, worker.probe(e -> {}));
    assertThatThrownBy(() -> worker.consumers.round(ConsumerName.PUSH))
        .hasMessageContaining("has no cursor row");
  }
}
