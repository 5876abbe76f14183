package dev.bothy;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.sync.app.ConsumerRunner;
import dev.bothy.testing.ConsumerFixture;
import dev.bothy.testing.JobsFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Each failure path of the consumer runner, the job runtime, the listener and the loop and process
 * failure lines, provoked with a payload or a key value that holds a marker: the marker reaches the
 * exception (its message, or the server's detail of a unique violation), and no captured log line,
 * stack traces included, carries it. The HTTP API's path is in {@code AppendFailureLogsTest}.
 */
class LogsCarryNoDataTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private final String marker = "leakmark-" + UUID.randomUUID();
  private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final List<Runnable> cleanups = new ArrayList<>();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();

  /** Job args may hold only ids and numbers, so the job's marker is a UUID. */
  record LeakArgs(UUID marker, boolean unique) {}

  @BeforeEach
  void capture() throws SQLException {
    captured.start();
    root.addAppender(captured);
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS leak_probe (k text PRIMARY KEY)");
      st.execute("GRANT SELECT, INSERT ON leak_probe TO bothy_app");
      st.execute("DELETE FROM leak_probe");
      st.execute("DELETE FROM event_consumer_cursors");
      st.execute("DELETE FROM jobs");
    }
  }

  @AfterEach
  void stop() {
    cleanups.forEach(Runnable::run);
    root.detachAppender(captured);
  }

  @Test
  void a_failing_consumer_handler_logs_neither_the_payload_nor_the_key_value() throws Exception {
    ConsumerFixture worker = new ConsumerFixture(PG.app(), 10);
    AtomicInteger calls = new AtomicInteger();
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        event -> {
          int n = calls.incrementAndGet();
          if (n == 1) {
            // A handler that quotes what it read in its exception.
            throw new IllegalStateException("cannot handle " + event.payload());
          }
          // A unique violation whose detail names the key: the payload itself.
          PgTx.dsl().execute("INSERT INTO leak_probe (k) VALUES (?)", marker);
          PgTx.dsl().execute("INSERT INTO leak_probe (k) VALUES (?)", marker);
        });
    worker.consumers.ensure();
    worker.log.uow.run(
        () ->
            worker.log.appender.append(
                new EventDraft(
                    "settings.updated",
                    new ResourceRef("user", ConsumerFixture.ALEX),
                    Optional.empty(),
                    new SettingsUpdated(List.of(marker)))));
    ConsumerRunner runner =
        new ConsumerRunner(
            worker.consumers.freeze(),
            worker.consumers::round,
            name -> {},
            new dev.bothy.sync.app.Waker() {
              @Override
              public void start(Runnable onWake) {}

              @Override
              public void close() {}
            },
            Duration.ofMillis(20),
            Clock.system(),
            Pause.real(),
            fatal::add);
    runner.start();
    cleanups.add(() -> runner.stop(Duration.ofSeconds(5)));
    await("the handler failed both ways", () -> calls.get() >= 3);

    assertFailureLogged("event consumer round failed");
    assertNoLineCarriesTheMarker();
  }

  @Test
  void a_failing_job_logs_neither_its_marker_nor_the_key_value() throws Exception {
    UUID jobMarker = UUID.randomUUID();
    JobsFixture jobs = new JobsFixture(PG, Clock.system());
    jobs.registry.register(
        JobKind.builder(
                "test.leak",
                LeakArgs.class,
                (ctx, args) -> {
                  if (!args.unique()) {
                    throw new IllegalStateException("cannot work " + args.marker());
                  }
                  try (Connection c = PG.app().getConnection();
                      PreparedStatement st =
                          c.prepareStatement("INSERT INTO leak_probe (k) VALUES (?)")) {
                    st.setString(1, args.marker().toString());
                    st.execute();
                    st.execute();
                  }
                })
            .maxAttempts(1)
            .build());
    jobs.registry.freeze();
    PgJobRuntime runtime = jobs.runtime(PG.app(), JobsFixture.settings(Map.of("default", 2)));
    runtime.start();
    cleanups.add(jobs::stopAll);
    jobs.uow.run(
        () ->
            jobs.inserter.insertTx(new LeakArgs(jobMarker, false), new LeakArgs(jobMarker, true)));
    await("both jobs discarded", () -> discarded() == 2);
    // The runtime logs an attempt's failure after its outcome commits, so the line can trail the
    // row by a moment: wait for both lines rather than read the log once.
    await(
        "both failures logged",
        () -> lines().stream().filter(l -> l.contains("job attempt failed")).count() == 2);

    assertFailureLogged("job attempt failed");
    assertNoLineCarries(jobMarker.toString());
  }

  @Test
  void a_failing_listener_logs_not_the_notification_that_broke_it() throws Exception {
    AtomicInteger connects = new AtomicInteger();
    Listener listener =
        new Listener(
            new PoolSettings(
                PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), "bothy-test-leak"),
            "leak_channel",
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            payload -> {
              throw new IllegalArgumentException("not a number: " + payload);
            },
            connects::incrementAndGet,
            fatal::add);
    listener.start();
    cleanups.add(listener::close);
    await("connected", () -> connects.get() >= 1);
    try (Connection c = PG.superuser().getConnection();
        PreparedStatement st = c.prepareStatement("SELECT pg_notify('leak_channel', ?)")) {
      st.setString(1, marker);
      st.execute();
    }
    await("reconnected after the failure", () -> connects.get() >= 2);

    assertFailureLogged("listen connection lost");
    assertNoLineCarriesTheMarker();
  }

  @Test
  void the_standard_loop_lines_and_the_fatal_line_carry_no_message() {
    org.slf4j.Logger owner = LoggerFactory.getLogger("dev.bothy.test.LeakLoop");
    LoopLog log = LoopLog.of(owner, "leak test", "queue=default");
    log.failing(new IllegalStateException(marker), Duration.ofSeconds(1));
    log.ended(new IllegalStateException(marker));
    List<Integer> exits = new CopyOnWriteArrayList<>();
    new Lifecycle(Duration.ofSeconds(1), exits::add, System::nanoTime)
        .fail(new IllegalStateException("wrapped", new SQLException(marker, "23505")));

    assertThat(exits).containsExactly(1);
    assertFailureLogged("leak test failed, retrying");
    assertThat(lines()).anyMatch(l -> l.contains("sqlstate=23505"));
    assertNoLineCarriesTheMarker();
  }

  private long discarded() {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM jobs WHERE kind = 'test.leak' AND state = 'discarded'")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void assertFailureLogged(String message) {
    assertThat(lines())
        .as("the failure was logged")
        .anyMatch(l -> l.contains(message) && l.contains("error.type="));
  }

  private void assertNoLineCarriesTheMarker() {
    assertNoLineCarries(marker);
  }

  private void assertNoLineCarries(String value) {
    assertThat(lines()).isNotEmpty().noneMatch(l -> l.contains(value));
  }

  /** Every captured line with its stack trace, as an appender would write it. */
  private List<String> lines() {
    List<String> lines = new ArrayList<>();
    List<ILoggingEvent> events;
    // Runtime threads append while the test reads: Logback appends under the appender's lock, so
    // the copy takes it too (an unlocked copy can see a slot before its event and throw).
    synchronized (captured) {
      events = List.copyOf(captured.list);
    }
    for (ILoggingEvent e : events) {
      IThrowableProxy thrown = e.getThrowableProxy();
      lines.add(
          e.getLoggerName()
              + " "
              + e.getFormattedMessage()
              + (thrown == null ? "" : "\n" + ThrowableProxyUtil.asString(thrown)));
    }
    return lines;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(10);
    }
  }
}
