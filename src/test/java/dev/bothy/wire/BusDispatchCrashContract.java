package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatch contract across real processes, one test body for every transport (issue 19), as
 * {@code dev.bothy.bus.DispatchContract} is in one JVM: worker processes ({@link BusProbeWorker},
 * the real application as {@code worker} with a handler that writes one row per event) killed with
 * SIGKILL at a fault point armed by a test-only system property (D-BD-5), then restarted; and two
 * worker processes sharing one bus consumer. Each test counts the effect rows and the delivery rows
 * per event; a transport says how its workers are configured, when a delivery is answered and how
 * it saw the second delivery ({@link BusDispatchCrashTest} on the log, {@link
 * BusDispatchNatsCrashTest} on NATS durables).
 */
abstract class BusDispatchCrashContract {
  /** The longest wait for a worker process to start. */
  static final Duration START = Duration.ofSeconds(60);

  /** The longest wait for a fault point, or for the work to be answered. */
  static final Duration SETTLE = Duration.ofSeconds(60);

  private static final Pattern FAULT = Pattern.compile("FAULT (\\S+) (\\S+)");

  @TempDir Path dir;

  /**
   * The class's database.
   *
   * @return its extension
   */
  abstract PgExtension pg();

  /**
   * The transport's lines of the {@code bus} section, indented below {@code bus:}, after {@code
   * dispatch}; empty for the log.
   *
   * @return YAML lines
   */
  abstract String busYaml();

  /**
   * The start step after which a worker's bus consumers take work.
   *
   * @return the step's name
   */
  abstract String consumersStep();

  /**
   * Called after the workers started and before the events are appended: a transport takes the
   * counts it compares with afterwards.
   *
   * @throws Exception when the counts cannot be read
   */
  abstract void beforeAppend() throws Exception;

  /**
   * Waits until the transport answered every dispatch of the {@code events} events after {@code
   * afterSeq} (the job completed, the message acked), and asserts it did.
   *
   * @param afterSeq the head before the events
   * @param events how many were appended
   * @throws Exception when the state cannot be read
   */
  abstract void awaitAnswered(long afterSeq, int events) throws Exception;

  /**
   * Asserts that the one event's dispatch committed and was never answered to the transport (the
   * job still running, the message delivered and unacknowledged).
   *
   * @param event the event
   * @throws Exception when the state cannot be read
   */
  abstract void assertUnanswered(UUID event) throws Exception;

  /**
   * Asserts that the one event was delivered exactly twice since {@link #beforeAppend()}: once to
   * the killed worker, once to the restarted one.
   *
   * @param event the event
   * @throws Exception when the state cannot be read
   */
  abstract void assertDeliveredTwice(UUID event) throws Exception;

  @BeforeEach
  void effectTable() throws Exception {
    try (Connection c = pg().owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS bus_probe_effects (event_id uuid NOT NULL, worker text NOT"
              + " NULL)");
      st.execute("GRANT SELECT, INSERT ON bus_probe_effects TO bothy_app");
    }
  }

  private Path config(String name) throws Exception {
    Path file = dir.resolve(name + ".yml");
    // A killed worker's running job comes back through the rescuer: jobs.rescueAfter is short
    // here so the test waits seconds, and every job timeout is shorter still (the start checks).
    Files.writeString(
        file,
        "database:\n  url: "
            + pg().jdbcUrl()
            + "\nconsumer:\n  pollInterval: 100ms\n"
            + "jobs:\n  pollInterval: 100ms\n  rescueAfter: 4s\n  defaultTimeout: 1s\n"
            + "  maintenanceInterval: 200ms\n"
            + "bus:\n  dispatch:\n    jobTimeout: 2s\n"
            + busYaml()
            + "webhooks:\n  requestTimeout: 1s\n  jobTimeoutMargin: 1s\n"
            + "server:\n  adminConnectors:\n    - type: http\n      port: 0\n");
    return file;
  }

  private ChildJvm worker(Path config, String name, String fault) throws Exception {
    List<String> props = new ArrayList<>(List.of("-Dbothy.test.probe.worker=" + name));
    if (!fault.isEmpty()) {
      props.add("-Dbothy.test.probe.fault=" + fault);
    }
    ChildJvm child =
        ChildJvm.startUncovered(
            BusProbeWorker.class.getName(), dir, props, Map.of(), "worker", config.toString());
    long deadline = System.nanoTime() + START.toNanos();
    // The whole start: a SIGKILL is fine at any time, but a SIGTERM before Jetty started waits
    // out the exit grace.
    while (!child.output().contains("start step done: step=" + consumersStep())
        || !child.output().contains("org.eclipse.jetty.server.Server: Started")) {
      if (!child.process().isAlive() || System.nanoTime() > deadline) {
        String out = child.output();
        child.close();
        throw new AssertionError("the worker " + name + " did not start:\n" + out);
      }
      Thread.sleep(50);
    }
    return child;
  }

  private static UUID awaitFault(ChildJvm child, String point) throws Exception {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = FAULT.matcher(child.output());
      if (m.find()) {
        assertThat(m.group(1)).isEqualTo(point);
        return UUID.fromString(m.group(2));
      }
      if (!child.process().isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the worker never reached the fault point:\n" + child.output());
  }

  private static void kill(ChildJvm child) throws Exception {
    child.process().destroyForcibly();
    assertThat(child.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
    child.close();
  }

  /**
   * Runs a count on the class's database as its owner.
   *
   * @param sql a query of one number
   * @return the number
   * @throws Exception when the query fails
   */
  long count(String sql) throws Exception {
    return Long.parseLong(PgExtension.rows(pg().owner(), sql).get(0));
  }

  private long effects(UUID event) throws Exception {
    return count("SELECT count(*) FROM bus_probe_effects WHERE event_id = '" + event + "'");
  }

  /**
   * Counts the delivery rows of the probe's handler and one event.
   *
   * @param event the event
   * @return 0 or 1
   * @throws Exception when the query fails
   */
  long deliveries(UUID event) throws Exception {
    return count(
        "SELECT count(*) FROM event_deliveries WHERE handler = '"
            + BusProbeWorker.HANDLER
            + "' AND event_id = '"
            + event
            + "'");
  }

  /**
   * Counts the delivery rows of the probe's handler for the events after a number.
   *
   * @param afterSeq the head before the events
   * @return the count
   * @throws Exception when the query fails
   */
  long deliveriesAfter(long afterSeq) throws Exception {
    return count(
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE d.handler = '"
            + BusProbeWorker.HANDLER
            + "' AND e.seq > "
            + afterSeq);
  }

  private long head() throws Exception {
    return count("SELECT coalesce(max(seq), 0) FROM event_log");
  }

  private List<UUID> eventsAfter(long afterSeq) throws Exception {
    return PgExtension.rows(
            pg().owner(), "SELECT id FROM event_log WHERE seq > " + afterSeq + " ORDER BY seq")
        .stream()
        .map(UUID::fromString)
        .toList();
  }

  private List<String> workersOf(UUID event) throws Exception {
    return PgExtension.rows(
        pg().owner(), "SELECT worker FROM bus_probe_effects WHERE event_id = '" + event + "'");
  }

  /**
   * Waits for {@code condition} up to {@link #SETTLE}, polling every 100 ms.
   *
   * @param condition what to wait for
   * @return whether it held before the deadline
   * @throws Exception when the condition throws
   */
  static boolean eventually(java.util.concurrent.Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(100);
    }
    return true;
  }

  @Test
  void a_worker_killed_between_handler_and_commit_leaves_nothing_and_the_restart_runs_it_once()
      throws Exception {
    Path config = config("a");
    ChildJvm first = worker(config, "first", "before-commit");
    long before = head();
    UUID event;
    try {
      beforeAppend();
      new EventLogFixture(pg().app()).append(UUID.randomUUID(), 1);
      event = awaitFault(first, "before-commit");
      kill(first);
    } finally {
      first.close();
    }
    assertThat(effects(event)).as("the handler's write after the kill").isZero();
    assertThat(deliveries(event)).as("the delivery row after the kill").isZero();

    try (ChildJvm second = worker(config, "second", "")) {
      awaitAnswered(before, 1);
      assertThat(effects(event)).as("the handler's write after the restart").isEqualTo(1);
      assertThat(deliveries(event)).as("the delivery row after the restart").isEqualTo(1);
      assertThat(workersOf(event)).as("the restarted process ran it").containsExactly("second");
      assertDeliveredTwice(event);
      second.terminate(Duration.ofSeconds(60));
    }
  }

  @Test
  void a_worker_killed_after_the_commit_before_its_answer_never_runs_the_effect_again()
      throws Exception {
    Path config = config("b");
    ChildJvm first = worker(config, "first", "after-commit");
    long before = head();
    UUID event;
    try {
      beforeAppend();
      new EventLogFixture(pg().app()).append(UUID.randomUUID(), 1);
      event = awaitFault(first, "after-commit");
      kill(first);
    } finally {
      first.close();
    }
    assertThat(effects(event)).as("the handler's write committed").isEqualTo(1);
    assertThat(deliveries(event)).as("the delivery row committed").isEqualTo(1);
    assertUnanswered(event);

    try (ChildJvm second = worker(config, "second", "")) {
      awaitAnswered(before, 1);
      assertDeliveredTwice(event);
      assertThat(effects(event)).as("the effect after the second delivery").isEqualTo(1);
      assertThat(deliveries(event)).as("the delivery row after the second delivery").isEqualTo(1);
      assertThat(workersOf(event)).as("the first process ran it").containsExactly("first");
      second.terminate(Duration.ofSeconds(60));
    }
  }

  @Test
  void two_worker_processes_on_one_bus_consumer_share_the_work_with_each_effect_once()
      throws Exception {
    Path config = config("c");
    EventLogFixture log = new EventLogFixture(pg().app());
    try (ChildJvm alex = worker(config, "alex", "");
        ChildJvm sam = worker(config, "sam", "")) {
      long before = head();
      beforeAppend();
      // Bursts over a few seconds, so both processes' consumers find work.
      for (int burst = 0; burst < 30; burst++) {
        log.append(UUID.randomUUID(), 10);
        Thread.sleep(100);
      }
      List<UUID> events = eventsAfter(before);
      assertThat(events).hasSize(300);
      awaitAnswered(before, events.size());
      Map<String, Long> perEvent = new HashMap<>();
      for (String row :
          PgExtension.rows(
              pg().owner(),
              "SELECT event_id || ' ' || count(*) FROM bus_probe_effects WHERE worker IN"
                  + " ('alex', 'sam') GROUP BY event_id")) {
        String[] parts = row.split(" ");
        perEvent.put(parts[0], Long.parseLong(parts[1]));
      }
      for (UUID event : events) {
        assertThat(perEvent.get(event.toString())).as("effects of " + event).isEqualTo(1L);
        assertThat(deliveries(event)).as("delivery rows of " + event).isEqualTo(1);
      }
      assertThat(perEvent).as("no effect of another event").hasSize(events.size());
      List<String> workers =
          PgExtension.rows(
              pg().owner(),
              "SELECT DISTINCT worker FROM bus_probe_effects WHERE worker IN ('alex', 'sam')"
                  + " ORDER BY worker");
      assertThat(workers).as("both processes ran handlers").containsExactly("alex", "sam");
      sam.terminate(Duration.ofSeconds(60));
      alex.terminate(Duration.ofSeconds(60));
    }
  }
}
