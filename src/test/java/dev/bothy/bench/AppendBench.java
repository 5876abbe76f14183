package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.sync.EventDraft;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.SyncConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * The append benchmark ({@code bench/run.sh append}): committed units per second at 1, 8 and 32
 * writers, with 1 and with 100 events per unit, for four variants on the same embedded PostgreSQL:
 * Bothy's append path, pgbench running the same statements with the same data as literals (the
 * counter-row ceiling), pgbench generating the rows server-side (the lock window alone) and pgbench
 * inserting into a {@code bigserial} table (the unserialized limit, no order guarantee).
 *
 * <p>Prints {@code variant<TAB>seconds} rows (a fixed number of units per sample) on stdout and a
 * comparison table on stderr.
 */
public final class AppendBench {
  private static final int[] WRITERS = BenchSupport.ints("bench.writers", 1, 8, 32);
  private static final int[] EVENTS_PER_UNIT = BenchSupport.ints("bench.events", 1, 100);
  private static final List<String> VARIANTS =
      List.of(
          System.getProperty("bench.variants", "pgbench,generated,bigserial,bothy,perwriter")
              .split(","));

  private static final Map<Integer, HikariDataSource> POOLS = new HashMap<>();

  private AppendBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args samples per variant, units per sample with 1 event (a fifth of it with 100)
   * @throws Exception when the server, pgbench or a unit fails
   */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int units = args.length > 1 ? Integer.parseInt(args[1]) : 8000;
    Path dir = Files.createTempDirectory("bothy-bench-append");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      prepare(server);
      // One untimed round of Bothy's cells first: the JIT compiles the append path while it
      // runs, and a sample taken during that would measure the compiler, not the path.
      System.err.println("append: warming up (not recorded)");
      for (int n : EVENTS_PER_UNIT) {
        int count = unitsPerSample(n, units);
        for (int writers : WRITERS) {
          bothy(server, n, writers, DatabaseConfig.DEFAULT_MAX_POOL_SIZE, count);
          if (VARIANTS.contains("perwriter")) {
            bothy(server, n, writers, writers, count);
          }
        }
      }
      for (int run = 1; run <= runs; run++) {
        System.err.printf("append: run %d of %d%n", run, runs);
        for (int n : EVENTS_PER_UNIT) {
          int count = unitsPerSample(n, units);
          for (int writers : WRITERS) {
            String suffix = "-" + n + "ev-" + writers + "w";
            int done = count / writers * writers;
            if (VARIANTS.contains("pgbench")) {
              ceilingSample(samples, server, dir, "pgbench" + suffix, ceiling(n), writers, done);
            }
            if (VARIANTS.contains("generated")) {
              ceilingSample(
                  samples, server, dir, "generated" + suffix, generatedCeiling(n), writers, done);
            }
            if (VARIANTS.contains("bigserial")) {
              ceilingSample(
                  samples, server, dir, "bigserial" + suffix, bigserial(n), writers, done);
            }
            if (VARIANTS.contains("bothy")) {
              bothySample(
                  samples,
                  server,
                  dir,
                  "bothy" + suffix,
                  n,
                  writers,
                  DatabaseConfig.DEFAULT_MAX_POOL_SIZE,
                  count);
            }
            if (VARIANTS.contains("perwriter")) {
              bothySample(samples, server, dir, "perwriter" + suffix, n, writers, writers, count);
            }
          }
        }
      }
      POOLS.values().forEach(HikariDataSource::close);
    } finally {
      BenchSupport.deleteTree(dir);
    }
    System.err.println();
    System.err.println(
        "| events/unit | writers | pgbench same data units/s | pgbench generated rows units/s"
            + " | bigserial units/s | Bothy units/s | Bothy events/s | Bothy / same data"
            + " | Bothy / generated rows | Bothy / bigserial | Bothy, a connection per writer,"
            + " units/s | its / same data |");
    System.err.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (int n : EVENTS_PER_UNIT) {
      int count = unitsPerSample(n, units);
      for (int writers : WRITERS) {
        String suffix = "-" + n + "ev-" + writers + "w";
        int done = count / writers * writers;
        double pg = BenchSupport.rate(samples, "pgbench" + suffix, done);
        double gen = BenchSupport.rate(samples, "generated" + suffix, done);
        double big = BenchSupport.rate(samples, "bigserial" + suffix, done);
        double bothy = BenchSupport.rate(samples, "bothy" + suffix, done);
        double perWriter = BenchSupport.rate(samples, "perwriter" + suffix, done);
        System.err.printf(
            "| %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.0f | %.2f |%n",
            n,
            writers,
            pg,
            gen,
            big,
            bothy,
            bothy * n,
            bothy / pg,
            bothy / gen,
            bothy / big,
            perWriter,
            perWriter / pg);
      }
    }
  }

  /**
   * Records one pgbench sample at its steady rate (see {@link BenchSupport#pgbenchSteady}) as the
   * seconds {@code units} transactions take at that rate, and prints the CPU time per transaction
   * of pgbench and of the server on stderr.
   */
  private static void ceilingSample(
      Map<String, List<Double>> samples,
      EmbeddedPostgresServer server,
      Path dir,
      String variant,
      String script,
      int writers,
      int units)
      throws Exception {
    long[] before = BenchSupport.cpuNanos(dir.resolve("data"));
    BenchSupport.Steady steady =
        BenchSupport.pgbenchSteady(
            server,
            dir,
            script,
            writers,
            Integer.getInteger("bench.pgbenchWarmSeconds", 3),
            Integer.getInteger("bench.pgbenchSeconds", 5));
    BenchSupport.record(samples, variant, units / steady.tps());
    Thread.sleep(200);
    long[] after = BenchSupport.cpuNanos(dir.resolve("data"));
    long tx = Math.max(1, steady.transactions());
    System.err.printf(
        "append: %s cpu per unit: pgbench %.0f us, server %.0f us%n",
        variant, (after[2] - before[2]) / 1e3 / tx, (after[1] - before[1]) / 1e3 / tx);
  }

  /**
   * Records one sample of Bothy's append path (see {@link #bothy}) and prints the CPU time per unit
   * of the JVM and of the server on stderr.
   */
  private static void bothySample(
      Map<String, List<Double>> samples,
      EmbeddedPostgresServer server,
      Path dir,
      String variant,
      int n,
      int writers,
      int poolSize,
      int units)
      throws Exception {
    long[] before = BenchSupport.cpuNanos(dir.resolve("data"));
    BenchSupport.record(samples, variant, bothy(server, n, writers, poolSize, units));
    Thread.sleep(200);
    long[] after = BenchSupport.cpuNanos(dir.resolve("data"));
    System.err.printf(
        "append: %s cpu per unit: jvm %.0f us, server %.0f us%n",
        variant, (after[0] - before[0]) / 1e3 / units, (after[1] - before[1]) / 1e3 / units);
  }

  /**
   * Units per sample: all of them with 1 event per unit, a fifth with 100, so a sample at 32
   * writers still gives every connection dozens of units and lasts seconds, not a fraction of one.
   */
  private static int unitsPerSample(int eventsPerUnit, int units) {
    return eventsPerUnit == 1 ? units : Math.max(32, units / 5);
  }

  private static void prepare(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      // Room for every sample: partitions up to 20 million numbers.
      for (long from = 1_000_001; from < 20_000_001; from += 1_000_000) {
        st.execute(
            "SELECT bothy_event_log_create_partition(" + from + ", " + (from + 1_000_000) + ")");
      }
      st.execute(
          "CREATE TABLE bench_bigserial (seq bigserial PRIMARY KEY, id uuid NOT NULL,"
              + " type text NOT NULL, occurred_at timestamptz NOT NULL, resource_type text NOT"
              + " NULL, resource_id uuid NOT NULL, actor_id uuid, payload jsonb NOT NULL,"
              + " traceparent text)");
      st.execute("GRANT SELECT, INSERT ON bench_bigserial TO bothy_app");
      st.execute("GRANT USAGE ON SEQUENCE bench_bigserial_seq_seq TO bothy_app");
    }
  }

  /**
   * The rows of one unit as the literal arrays Bothy binds: the same ids, times, resources and
   * payload JSON that {@code EventLogFixture.drafts} produce, so pgbench sends and the server
   * parses exactly what the append path sends.
   */
  private static String unnestRows(int n) {
    UUID user = Ids.newId();
    StringBuilder ids = new StringBuilder();
    StringBuilder types = new StringBuilder();
    StringBuilder times = new StringBuilder();
    StringBuilder resourceTypes = new StringBuilder();
    StringBuilder resourceIds = new StringBuilder();
    StringBuilder actors = new StringBuilder();
    StringBuilder payloads = new StringBuilder();
    String at = OffsetDateTime.now(ZoneOffset.UTC).toString();
    for (int i = 0; i < n; i++) {
      String sep = i == 0 ? "" : ",";
      ids.append(sep).append(Ids.newId());
      types.append(sep).append("settings.updated");
      times.append(sep).append(at);
      resourceTypes.append(sep).append("user");
      resourceIds.append(sep).append(user);
      actors.append(sep).append("NULL");
      String json = "{\"changedKeys\":[\"k" + i + "\"]}";
      payloads
          .append(sep)
          .append('"')
          .append(json.replace("\\", "\\\\").replace("\"", "\\\""))
          .append('"');
    }
    return " FROM unnest('{"
        + ids
        + "}'::uuid[], '{"
        + types
        + "}'::text[], '{"
        + times
        + "}'::timestamptz[], '{"
        + resourceTypes
        + "}'::text[], '{"
        + resourceIds
        + "}'::uuid[], '{"
        + actors
        + "}'::uuid[], '{"
        + payloads
        + "}'::text[]) WITH ORDINALITY"
        + " AS e(id, type, occurred_at, resource_type, resource_id, actor_id, payload, ord)";
  }

  private static String generatedCeiling(int n) {
    // The counter-row design with the rows generated server-side: no data crosses the wire, so
    // this is the ceiling of the lock window alone.
    return String.join(
        "\n",
        "BEGIN;",
        "UPDATE sequence_counters SET value = value + "
            + n
            + " WHERE name = 'event_seq'"
            + " RETURNING value AS last \\gset",
        "WITH inserted AS (INSERT INTO event_log (seq, id, type, occurred_at, resource_type,"
            + " resource_id, actor_id, payload) SELECT :last - "
            + n
            + " + g, gen_random_uuid(), 'settings.updated', now(), 'user', gen_random_uuid(),"
            + " NULL, '{\"changedKeys\":[\"k\"]}'::jsonb FROM generate_series(1, "
            + n
            + ") g RETURNING seq) SELECT pg_notify('event_log', ':last'),"
            + " (SELECT count(*) FROM inserted);",
        "COMMIT;",
        "");
  }

  private static String ceiling(int n) {
    // JooqEventRepository's statements with its data as literals: the counter UPDATE, then
    // one statement that inserts the rows from the arrays and queues the notification.
    return String.join(
        "\n",
        "BEGIN;",
        "UPDATE sequence_counters SET value = value + "
            + n
            + " WHERE name = 'event_seq'"
            + " RETURNING value AS last \\gset",
        "WITH inserted AS (INSERT INTO event_log (seq, id, type, occurred_at, resource_type,"
            + " resource_id, actor_id, payload) SELECT :last - "
            + n
            + " + e.ord, e.id, e.type, e.occurred_at, e.resource_type, e.resource_id,"
            + " e.actor_id, e.payload::jsonb"
            + unnestRows(n)
            + " RETURNING seq) SELECT pg_notify('event_log', ':last'),"
            + " (SELECT count(*) FROM inserted);",
        "COMMIT;",
        "");
  }

  private static String bigserial(int n) {
    return String.join(
        "\n",
        "BEGIN;",
        "INSERT INTO bench_bigserial (id, type, occurred_at, resource_type, resource_id,"
            + " actor_id, payload) SELECT e.id, e.type, e.occurred_at, e.resource_type,"
            + " e.resource_id, e.actor_id, e.payload::jsonb"
            + unnestRows(n)
            + ";",
        "COMMIT;",
        "");
  }

  /**
   * Runs one sample of Bothy's append path: {@code writers} threads running units on a pool of
   * {@code poolSize} connections (a writer without a free connection waits for one in the process,
   * before its transaction begins, as a request thread of the service does).
   */
  private static double bothy(
      EmbeddedPostgresServer server, int n, int writers, int poolSize, int units) throws Exception {
    LongAdder lockHeldNanos = new LongAdder();
    LongAdder lockHeldUnits = new LongAdder();
    // One pool per writer count for the whole benchmark, as a service keeps its pool: a new
    // backend pays for its catalog caches and its first touch of every shared buffer page,
    // which a sample on fresh connections would count as append cost.
    HikariDataSource pool = POOLS.computeIfAbsent(poolSize, w -> BenchSupport.pool(server, w));
    EventLogFixture log =
        new EventLogFixture(
            pool,
            dev.bothy.kernel.Clock.system(),
            64 * 1024,
            (events, nanos) -> {
              lockHeldNanos.add(nanos);
              lockHeldUnits.increment();
            },
            Integer.getInteger(
                "bench.maxConcurrentAppends", SyncConfig.DEFAULT_MAX_CONCURRENT_APPENDS));
    EventDraft[] drafts = EventLogFixture.drafts(Ids.newId(), n);
    double seconds =
        BenchSupport.writers(writers, units, () -> log.uow.run(() -> log.appender.append(drafts)));
    System.err.printf(
        "append: bothy-%dev-%dw, pool of %d, event_seq lock held per unit: %.0f us (mean)%n",
        n, writers, poolSize, lockHeldNanos.sum() / 1e3 / Math.max(1, lockHeldUnits.sum()));
    return seconds;
  }
}
