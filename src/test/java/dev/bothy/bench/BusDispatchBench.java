package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.JobsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The bus dispatch benchmark ({@code bench/run.sh bus-dispatch}): events per second through one bus
 * consumer with a no-op handler, with 1 and 2 worker processes, side by side with the ceiling that
 * bounds it, pgbench running the delivery-row transaction at the same concurrency against the same
 * embedded PostgreSQL 18; then the latency from an append's commit to the handler at 200 events/s.
 *
 * <p>The worker processes are real processes: child JVMs running the application as {@code worker}
 * ({@code dev.bothy.wire.BusProbeWorker} in {@code noop} mode, the default configuration but for
 * the database and a free admin port), each with its own pool, job runtime and consumer runner, as
 * an installation runs them. They share the machine's cores with PostgreSQL, as pgbench does.
 *
 * <p>A transport is a parameter ({@code -Dbench.transports}, default {@code log}): each transport
 * adds a row per process count beside the same ceiling row. Only {@code log} is built; a NATS row
 * needs its own worker start and its own ceiling (a raw jnats consume-and-ack loop).
 *
 * <p>Prints {@code variant<TAB>seconds} rows ({@code events} events per sample) on stdout and the
 * comparison on stderr.
 */
public final class BusDispatchBench {
  private static final String HANDLER = "probe.effect";
  private static final String WORKER_MAIN = "dev.bothy.wire.BusProbeWorker";
  private static final Duration START = Duration.ofSeconds(120);
  private static final Duration DRAIN = Duration.ofMinutes(10);
  private static final int APPEND_UNIT = 1000;
  private static final int CEILING_JOBS = 200_000;
  private static final int LATENCY_RATE = 200;

  /**
   * The ceiling, per event what one dispatch writes and commits (Dispatch, DispatchJob, the job
   * runtime): the unit of work's three timeouts with set_config, the delivery row inserted with ON
   * CONFLICT DO NOTHING, and the job's completion, one running bus job found with SKIP LOCKED (as
   * the fetch finds it) and marked completed. All in one transaction: Bothy commits the delivery
   * row with the handler and completes jobs in batches in a transaction of the completer, and also
   * reads the event and checks for an open dead letter, which the ceiling leaves out; so it is an
   * upper bound.
   */
  private static final String CEILING_SCRIPT =
      "BEGIN;\n"
          + "SELECT set_config('statement_timeout', '30000ms', true),"
          + " set_config('lock_timeout', '5000ms', true),"
          + " set_config('idle_in_transaction_session_timeout', '60000ms', true);\n"
          + "INSERT INTO event_deliveries (handler, event_id, handled_at) VALUES ('"
          + HANDLER
          + "', gen_random_uuid(), now()) ON CONFLICT DO NOTHING;\n"
          + "UPDATE jobs SET state = 'completed', finalized_at = now() WHERE id = (SELECT id FROM"
          + " jobs WHERE state = 'running' LIMIT 1 FOR UPDATE SKIP LOCKED);\n"
          + "COMMIT;\n";

  private BusDispatchBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args samples per variant, events per sample, seconds of the latency phase
   * @throws Exception when the server, pgbench or a worker process fails
   */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int latencySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
    int[] processes = BenchSupport.ints("bench.processes", 1, 2);
    List<String> transports =
        List.of(System.getProperty("bench.transports", "log").split(",")).stream()
            .map(String::trim)
            .toList();
    for (String transport : transports) {
      if (!transport.equals("log")) {
        throw new IllegalArgumentException(
            "unknown transport " + transport + " in bench.transports; built: log");
      }
    }
    int perProcess = JobsConfig.BUS_QUEUE_WORKERS;
    Path dir = Files.createTempDirectory("bothy-bench-bus-dispatch");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    Map<String, String> latency = new LinkedHashMap<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"), 0, Duration.ofSeconds(60), Duration.ZERO)) {
      BenchSupport.migrate(server);
      // The worker processes' start checks the instance record, which db migrate writes.
      PgExtension.recordInstance(server.superuserDataSource());
      try (HikariDataSource pool = BenchSupport.pool(server, 2)) {
        EventLogFixture log = new EventLogFixture(pool);
        for (int run = 1; run <= runs; run++) {
          System.err.printf("bus-dispatch: run %d of %d%n", run, runs);
          for (int p : processes) {
            int concurrency = p * perProcess;
            clear(server);
            fillRunningJobs(server);
            BenchSupport.Steady ceiling =
                BenchSupport.pgbenchSteady(server, dir, CEILING_SCRIPT, concurrency, 3, 5);
            if (ceiling.transactions() >= CEILING_JOBS) {
              throw new IllegalStateException("the ceiling ran out of running jobs to complete");
            }
            BenchSupport.record(samples, "ceiling-c" + concurrency, events / ceiling.tps());
            for (String transport : transports) {
              clear(server);
              Workers workers = Workers.start(server, dir, p);
              try {
                // Warm-up: the children's JIT and pools, unrecorded.
                drain(server, log, events / 4);
                double seconds = drain(server, log, events);
                BenchSupport.record(samples, transport + "-" + p + "p", seconds);
                workers.printCpu(events + events / 4);
                if (run == runs) {
                  latency.put(transport + "-" + p + "p", latency(server, log, latencySeconds));
                }
              } finally {
                workers.stop();
              }
            }
          }
        }
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    System.err.println();
    System.err.println(
        "| transport | worker processes | concurrency | ceiling events/s | Bothy events/s |"
            + " Bothy / ceiling | Bothy / lower ceiling |");
    System.err.println("|---|---|---|---|---|---|---|");
    double lower = Double.MAX_VALUE;
    for (int p : processes) {
      lower = Math.min(lower, BenchSupport.rate(samples, "ceiling-c" + p * perProcess, events));
    }
    for (String transport : transports) {
      for (int p : processes) {
        double ceiling = BenchSupport.rate(samples, "ceiling-c" + p * perProcess, events);
        double bothy = BenchSupport.rate(samples, transport + "-" + p + "p", events);
        System.err.printf(
            "| %s | %d | %d | %.0f | %.0f | %.2f | %.2f |%n",
            transport, p, p * perProcess, ceiling, bothy, bothy / ceiling, bothy / lower);
      }
    }
    System.err.println();
    System.err.printf(
        "commit-to-handler latency at %d events/s, %d s (ms):%n", LATENCY_RATE, latencySeconds);
    System.err.println("| variant | events | p50 | p99 | max |");
    System.err.println("|---|---|---|---|---|");
    latency.forEach((variant, row) -> System.err.printf("| %s | %s |%n", variant, row));
  }

  /** Empties the tables dispatch writes, so every sample starts alike. */
  private static void clear(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE jobs, event_deliveries");
      st.execute("VACUUM ANALYZE jobs");
      st.execute("VACUUM ANALYZE event_deliveries");
    }
  }

  /** Running bus jobs for the ceiling to complete, more than it can complete in its run. */
  private static void fillRunningJobs(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts, priority,"
              + " scheduled_at, attempted_at, attempted_by, created_at) SELECT gen_random_uuid(),"
              + " 'bus.dispatch', 'bus', jsonb_build_object('eventId', gen_random_uuid()),"
              + " 'running', 1, 10, 1, now(), now(), 'pgbench', now() FROM generate_series(1, "
              + CEILING_JOBS
              + ")");
      st.execute("VACUUM ANALYZE jobs");
    }
  }

  /**
   * Appends {@code n} events in units of {@link #APPEND_UNIT} and waits until every one is handled;
   * returns the seconds for {@code n} events at the rate between the 10th and the 90th percentile
   * of their delivery times ({@code event_deliveries.handled_at}), which leaves out the first round
   * of the worker consumer and the last batch of completions, as pgbench's rate leaves out its
   * warm-up. The wall time from the first append to the last completion goes to stderr.
   */
  private static double drain(EmbeddedPostgresServer server, EventLogFixture log, int n)
      throws Exception {
    long before = scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log");
    long began = System.nanoTime();
    UUID user = UUID.randomUUID();
    for (int done = 0; done < n; done += APPEND_UNIT) {
      log.append(user, Math.min(APPEND_UNIT, n - done));
    }
    long head = scalar(server, "SELECT max(seq) FROM event_log");
    // Cheap polls: the cursor of the worker consumer bus, then the fetchable and running jobs
    // through their partial indexes; the delivery rows are counted once at the end.
    String cursor =
        "SELECT coalesce(max(last_seq), 0) FROM event_consumer_cursors WHERE name = 'bus'";
    String pending =
        "SELECT count(*) FROM jobs WHERE state IN ('available', 'scheduled', 'retryable',"
            + " 'running')";
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (scalar(server, cursor) < head || scalar(server, pending) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the workers did not handle " + n + " events in " + DRAIN);
      }
      Thread.sleep(50);
    }
    String handled =
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE e.seq > "
            + before;
    double wall = (System.nanoTime() - began) / 1e9;
    if (scalar(server, handled) != n) {
      throw new IllegalStateException(
          "delivery rows differ from events: " + scalar(server, handled));
    }
    double window =
        decimal(
            server,
            "SELECT extract(epoch FROM percentile_disc(0.9) WITHIN GROUP (ORDER BY d.handled_at)"
                + " - percentile_disc(0.1) WITHIN GROUP (ORDER BY d.handled_at))"
                + " FROM event_deliveries d JOIN event_log e ON e.id = d.event_id WHERE e.seq > "
                + before);
    double seconds = window / 0.8;
    System.err.printf(
        "bus-dispatch: %d events, steady %.0f events/s, wall %.2f s (%.0f events/s)%n",
        n, n / seconds, wall, n / wall);
    return seconds;
  }

  /**
   * Appends one event every 5 ms for {@code seconds} and returns "events | p50 | p99 | max" of the
   * time from the return of the appending unit's {@code run} (after its commit) to the handler's
   * delivery time, both wall clocks of this machine.
   */
  private static String latency(EmbeddedPostgresServer server, EventLogFixture log, int seconds)
      throws Exception {
    long before = scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log");
    Map<UUID, Instant> committed = new LinkedHashMap<>();
    long period = TimeUnit.SECONDS.toNanos(1) / LATENCY_RATE;
    int total = seconds * LATENCY_RATE;
    long start = System.nanoTime();
    UUID user = UUID.randomUUID();
    for (int i = 0; i < total; i++) {
      long due = start + i * period;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      List<UUID> ids = log.uow.run(() -> log.appender.append(EventLogFixture.drafts(user, 1)));
      committed.put(ids.get(0), Instant.now());
    }
    String handled =
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE e.seq > "
            + before;
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (scalar(server, handled) < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the latency phase's events were not all handled");
      }
      Thread.sleep(50);
    }
    List<Double> millis = new ArrayList<>();
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT d.event_id, d.handled_at FROM event_deliveries d JOIN event_log e"
                    + " ON e.id = d.event_id WHERE e.seq > "
                    + before)) {
      while (rs.next()) {
        Instant at = rs.getObject(2, java.time.OffsetDateTime.class).toInstant();
        Instant commit = committed.get(rs.getObject(1, UUID.class));
        millis.add(Duration.between(commit, at).toNanos() / 1e6);
      }
    }
    millis.sort(null);
    return String.format(
        "%d | %.1f | %.1f | %.1f",
        millis.size(),
        millis.get(millis.size() / 2),
        millis.get((int) Math.ceil(millis.size() * 0.99) - 1),
        millis.get(millis.size() - 1));
  }

  private static long scalar(EmbeddedPostgresServer server, String sql) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static double decimal(EmbeddedPostgresServer server, String sql) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getDouble(1);
    }
  }

  /** The worker processes of one sample. */
  private record Workers(List<Process> processes, List<Path> outputs) {
    static Workers start(EmbeddedPostgresServer server, Path dir, int count) throws Exception {
      Path config = dir.resolve("worker.yml");
      Files.writeString(
          config,
          "database:\n  url: "
              + server.jdbcUrl("postgres")
              + "\nlogging:\n  level: INFO\n"
              + "server:\n  adminConnectors:\n    - type: http\n      port: 0\n");
      List<Process> processes = new ArrayList<>();
      List<Path> outputs = new ArrayList<>();
      Workers workers = new Workers(processes, outputs);
      try {
        for (int i = 0; i < count; i++) {
          Path output = Files.createTempFile(dir, "worker", ".log");
          List<String> command =
              new ArrayList<>(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-Dliquibase.analytics.enabled=false",
                      "-Dbothy.test.probe.mode=noop",
                      "-Dbothy.test.probe.worker=w" + i));
          command.addAll(
              List.of(System.getProperty("bench.workerJavaOpts", "").split(";")).stream()
                  .filter(s -> !s.isBlank())
                  .toList());
          command.addAll(
              List.of(
                  "-cp",
                  System.getProperty("java.class.path"),
                  WORKER_MAIN,
                  "worker",
                  config.toString()));
          processes.add(
              new ProcessBuilder(command)
                  .redirectErrorStream(true)
                  .redirectOutput(output.toFile())
                  .start());
          outputs.add(output);
        }
        for (int i = 0; i < count; i++) {
          workers.awaitStarted(i);
        }
        return workers;
      } catch (Exception e) {
        workers.stop();
        throw e;
      }
    }

    private void awaitStarted(int i) throws Exception {
      long deadline = System.nanoTime() + START.toNanos();
      while (true) {
        String out = Files.readString(outputs.get(i), StandardCharsets.UTF_8);
        if (out.contains("start step done: step=event_consumers")
            && out.contains("org.eclipse.jetty.server.Server: Started")) {
          return;
        }
        if (!processes.get(i).isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("worker process " + i + " did not start:\n" + out);
        }
        Thread.sleep(50);
      }
    }

    /** CPU per 1,000 events of each worker process so far, from /proc. */
    void printCpu(int events) {
      for (Process p : processes) {
        try {
          String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          System.err.printf(
              "bus-dispatch: worker pid %d CPU %.1f ms per 1,000 events (JVM start included)%n",
              p.pid(), ticks * 10.0 / events * 1000);
        } catch (IOException | RuntimeException e) {
          System.err.println("bus-dispatch: no CPU figure for worker pid " + p.pid());
        }
      }
    }

    /** SIGTERM, then SIGKILL after a minute; only the processes this benchmark started. */
    void stop() throws Exception {
      for (Process p : processes) {
        p.destroy();
      }
      for (int i = 0; i < processes.size(); i++) {
        Process p = processes.get(i);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(30, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(outputs.get(i));
      }
    }
  }

  static {
    // The default timeouts of the unit of work, which CEILING_SCRIPT repeats.
    DatabaseConfig d = new DatabaseConfig();
    if (d.statementTimeout().toMilliseconds() != 30_000
        || d.lockTimeout().toMilliseconds() != 5_000
        || d.idleInTransactionTimeout().toMilliseconds() != 60_000) {
      throw new IllegalStateException("the ceiling's timeouts differ from database.* defaults");
    }
  }
}
