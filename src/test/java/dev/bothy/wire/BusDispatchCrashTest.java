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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatch contract across real processes on the log transport (issue 19): worker processes
 * ({@link BusProbeWorker}, the real application as {@code worker} with a handler that writes one
 * row per event) killed with SIGKILL at a fault point armed by a test-only system property, then
 * restarted; and two worker processes sharing one bus consumer. Each test counts the effect rows
 * and the delivery rows per event.
 */
class BusDispatchCrashTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration SETTLE = Duration.ofSeconds(60);
  private static final Pattern FAULT = Pattern.compile("FAULT (\\S+) (\\S+)");

  @TempDir Path dir;

  @BeforeEach
  void effectTable() throws Exception {
    try (Connection c = PG.owner().getConnection();
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
            + PG.jdbcUrl()
            + "\nconsumer:\n  pollInterval: 100ms\n"
            + "jobs:\n  pollInterval: 100ms\n  rescueAfter: 4s\n  defaultTimeout: 1s\n"
            + "  maintenanceInterval: 200ms\n"
            + "bus:\n  dispatch:\n    jobTimeout: 2s\n"
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
    while (!child.output().contains("start step done: step=event_consumers")
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

  private static long count(String sql) throws Exception {
    return Long.parseLong(PgExtension.rows(PG.owner(), sql).get(0));
  }

  private static long effects(UUID event) throws Exception {
    return count("SELECT count(*) FROM bus_probe_effects WHERE event_id = '" + event + "'");
  }

  private static long deliveries(UUID event) throws Exception {
    return count(
        "SELECT count(*) FROM event_deliveries WHERE handler = '"
            + BusProbeWorker.HANDLER
            + "' AND event_id = '"
            + event
            + "'");
  }

  private static long head() throws Exception {
    return count("SELECT coalesce(max(seq), 0) FROM event_log");
  }

  /** Waits until the dispatch jobs of the events after {@code afterSeq} are completed. */
  private static void awaitCompleted(long afterSeq, long jobs) throws Exception {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    String done =
        "SELECT count(*) FROM jobs WHERE kind = 'bus.dispatch' AND state = 'completed'"
            + " AND (args->>'seq')::bigint > "
            + afterSeq;
    while (count(done) < jobs && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(count(done)).as("completed bus.dispatch jobs").isEqualTo(jobs);
  }

  private static List<UUID> eventsAfter(long afterSeq) throws Exception {
    return PgExtension.rows(
            PG.owner(), "SELECT id FROM event_log WHERE seq > " + afterSeq + " ORDER BY seq")
        .stream()
        .map(UUID::fromString)
        .toList();
  }

  @Test
  void a_worker_killed_between_handler_and_commit_leaves_nothing_and_the_restart_runs_it_once()
      throws Exception {
    Path config = config("a");
    ChildJvm first = worker(config, "first", "before-commit");
    long before = head();
    UUID event;
    try {
      new EventLogFixture(PG.app()).append(UUID.randomUUID(), 1);
      event = awaitFault(first, "before-commit");
      kill(first);
    } finally {
      first.close();
    }
    assertThat(effects(event)).as("the handler's write after the kill").isZero();
    assertThat(deliveries(event)).as("the delivery row after the kill").isZero();

    try (ChildJvm second = worker(config, "second", "")) {
      awaitCompleted(before, 1);
      assertThat(effects(event)).as("the handler's write after the restart").isEqualTo(1);
      assertThat(deliveries(event)).as("the delivery row after the restart").isEqualTo(1);
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT worker FROM bus_probe_effects WHERE event_id = '" + event + "'"))
          .as("the restarted process ran it")
          .containsExactly("second");
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT attempt FROM jobs WHERE kind = 'bus.dispatch' AND args->>'eventId' = '"
                      + event
                      + "'"))
          .as("the rescued job's second attempt ran it")
          .containsExactly("2");
      second.terminate(Duration.ofSeconds(60));
    }
  }

  @Test
  void a_worker_killed_after_the_commit_before_the_job_completes_never_runs_the_effect_again()
      throws Exception {
    Path config = config("b");
    ChildJvm first = worker(config, "first", "after-commit");
    long before = head();
    UUID event;
    try {
      new EventLogFixture(PG.app()).append(UUID.randomUUID(), 1);
      event = awaitFault(first, "after-commit");
      kill(first);
    } finally {
      first.close();
    }
    assertThat(effects(event)).as("the handler's write committed").isEqualTo(1);
    assertThat(deliveries(event)).as("the delivery row committed").isEqualTo(1);
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT state FROM jobs WHERE kind = 'bus.dispatch' AND args->>'eventId' = '"
                    + event
                    + "'"))
        .as("the job was never completed")
        .containsExactly("running");

    try (ChildJvm second = worker(config, "second", "")) {
      awaitCompleted(before, 1);
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT attempt FROM jobs WHERE kind = 'bus.dispatch' AND args->>'eventId' = '"
                      + event
                      + "'"))
          .as("the rescued job ran a second time")
          .containsExactly("2");
      assertThat(effects(event)).as("the effect after the second attempt").isEqualTo(1);
      assertThat(deliveries(event)).as("the delivery row after the second attempt").isEqualTo(1);
      second.terminate(Duration.ofSeconds(60));
    }
  }

  @Test
  void two_worker_processes_on_one_bus_consumer_share_the_work_with_each_effect_once()
      throws Exception {
    Path config = config("c");
    EventLogFixture log = new EventLogFixture(PG.app());
    try (ChildJvm alex = worker(config, "alex", "");
        ChildJvm sam = worker(config, "sam", "")) {
      long before = head();
      // Bursts over a few seconds, so both processes' fetchers find work.
      for (int burst = 0; burst < 30; burst++) {
        log.append(UUID.randomUUID(), 10);
        Thread.sleep(100);
      }
      List<UUID> events = eventsAfter(before);
      assertThat(events).hasSize(300);
      awaitCompleted(before, events.size());
      Map<String, Long> perEvent = new java.util.HashMap<>();
      for (String row :
          PgExtension.rows(
              PG.owner(),
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
              PG.owner(),
              "SELECT DISTINCT worker FROM bus_probe_effects WHERE worker IN ('alex', 'sam')"
                  + " ORDER BY worker");
      assertThat(workers).as("both processes ran handlers").containsExactly("alex", "sam");
      sam.terminate(Duration.ofSeconds(60));
      alex.terminate(Duration.ofSeconds(60));
    }
  }
}
