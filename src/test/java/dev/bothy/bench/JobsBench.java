package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.testing.JobsFixture;
import dev.bothy.wire.JacksonPayloadCodec;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.JobsConfig;
import io.dropwizard.jackson.Jackson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The jobs benchmark ({@code bench/run.sh jobs}): batch insert of 1,000 jobs per transaction
 * through {@link JobInserterService} against pgbench's {@code INSERT ... SELECT} of the same rows,
 * and no-op work throughput of a {@link PgJobRuntime} with the default {@code jobs.queues} against
 * pgbench running the fetch statement alone in a loop.
 *
 * <p>Prints {@code variant<TAB>seconds} rows (a fixed number of jobs per sample) on stdout and a
 * comparison table on stderr.
 */
public final class JobsBench {
  private static final int BATCH = 1000;
  private static final String QUEUE = "default";

  /** A no-op job's args. */
  record NoopArgs(UUID id) {}

  private JobsBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args samples per variant, jobs per sample (a multiple of 1,000)
   * @throws Exception when the server, pgbench or the runtime fails
   */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    JobsConfig defaults = new JobsConfig();
    int workers = defaults.queues().get(QUEUE);
    Path dir = Files.createTempDirectory("bothy-bench-jobs");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      try (HikariDataSource pool = BenchSupport.pool(server, 20)) {
        JobRegistry registry =
            new JobRegistry(
                defaults.defaultMaxAttempts(),
                defaults.defaultTimeout().toJavaDuration(),
                defaults.rescueAfter().toJavaDuration());
        registry.register(JobKind.builder("bench.noop", NoopArgs.class, (c, a) -> {}).build());
        registry.freeze();
        PgUnitOfWork uow = JobsFixture.unitOfWork(pool);
        JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());
        JobInserterService inserter =
            new JobInserterService(
                uow, new dev.bothy.platform.pg.HookRegistry(), registry, codec, Clock.system());
        for (int run = 1; run <= runs; run++) {
          System.err.printf("jobs: run %d of %d%n", run, runs);
          clear(server);
          BenchSupport.record(
              samples,
              "insert-pgbench",
              BenchSupport.pgbench(server, dir, insertScript(), 1, jobs / BATCH));
          clear(server);
          BenchSupport.record(samples, "insert-bothy", insert(inserter, uow, jobs));
          // The ceiling of the work loop: the fetch statement alone, as many jobs per statement
          // as the queue has workers, over the rows the insert left.
          BenchSupport.record(
              samples,
              "fetch-pgbench",
              BenchSupport.pgbench(server, dir, fetchScript(workers), 1, jobs / workers));
          clear(server);
          insert(inserter, uow, jobs);
          BenchSupport.record(
              samples, "work-bothy", work(server, pool, registry, codec, inserter, defaults, jobs));
        }
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    double insertCeiling = jobs / BenchSupport.median(samples.get("insert-pgbench"));
    double insert = jobs / BenchSupport.median(samples.get("insert-bothy"));
    double fetchCeiling = jobs / BenchSupport.median(samples.get("fetch-pgbench"));
    double work = jobs / BenchSupport.median(samples.get("work-bothy"));
    System.err.println();
    System.err.println("| measure | raw SQL ceiling jobs/s | Bothy jobs/s | Bothy / ceiling |");
    System.err.println("|---|---|---|---|");
    System.err.printf(
        "| insert, %d per transaction | %.0f | %.0f | %.2f |%n",
        BATCH, insertCeiling, insert, insert / insertCeiling);
    System.err.printf(
        "| no-op work, %d workers | %.0f | %.0f | %.2f |%n",
        workers, fetchCeiling, work, work / fetchCeiling);
  }

  private static void clear(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE jobs");
      st.execute("VACUUM ANALYZE jobs");
    }
  }

  private static String insertScript() {
    return "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority,"
        + " scheduled_at, created_at) SELECT gen_random_uuid(), 'bench.noop', 'default',"
        + " jsonb_build_object('id', gen_random_uuid()), 'available', 25, 1, now(), now()"
        + " FROM generate_series(1, "
        + BATCH
        + ");\n";
  }

  private static String fetchScript(int limit) {
    return "UPDATE jobs SET state = 'running', attempt = attempt + 1, attempted_at = now(),"
        + " attempted_by = 'pgbench' WHERE id IN (SELECT id FROM jobs WHERE queue = 'default'"
        + " AND state IN ('available', 'scheduled', 'retryable') AND scheduled_at <= now()"
        + " ORDER BY priority, scheduled_at, id LIMIT "
        + limit
        + " FOR UPDATE SKIP LOCKED) RETURNING id, kind, args::text, attempt, max_attempts,"
        + " scheduled_at;\n";
  }

  private static double insert(JobInserterService inserter, PgUnitOfWork uow, int jobs) {
    long began = System.nanoTime();
    for (int b = 0; b < jobs / BATCH; b++) {
      List<JobInsert> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++) {
        batch.add(JobInsert.of(new NoopArgs(Ids.newId())));
      }
      uow.run(() -> inserter.insertTx(batch));
    }
    return (System.nanoTime() - began) / 1e9;
  }

  private static double work(
      EmbeddedPostgresServer server,
      HikariDataSource pool,
      JobRegistry registry,
      JacksonPayloadCodec codec,
      JobInserterService inserter,
      JobsConfig defaults,
      int jobs)
      throws Exception {
    JobSettings settings =
        new JobSettings(
            defaults.queues(),
            defaults.pollInterval().toJavaDuration(),
            defaults.fetchLookback().toJavaDuration(),
            defaults.retryBaseDelay().toJavaDuration(),
            defaults.retryMaxDelay().toJavaDuration(),
            defaults.rescueAfter().toJavaDuration(),
            defaults.completedRetention().toJavaDuration(),
            defaults.discardedRetention().toJavaDuration(),
            defaults.maintenanceInterval().toJavaDuration(),
            defaults.cleanerBatchSize(),
            defaults.errorMessageMaxChars(),
            new DatabaseConfig().listenReconnectBackoffCap().toJavaDuration());
    PgJobRuntime runtime =
        new PgJobRuntime(
            JobsFixture.unitOfWork(pool),
            registry,
            codec,
            inserter,
            Clock.system(),
            settings,
            JobMetrics.NONE,
            JobTracer.NONE,
            new PoolSettings(
                BenchSupport.url(server),
                "bothy_app",
                null,
                1,
                Duration.ofSeconds(5),
                "bothy-bench-jobs"),
            e -> {
              throw new IllegalStateException("the job runtime failed", e);
            });
    long began = System.nanoTime();
    runtime.start();
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      while (true) {
        try (ResultSet rs =
            st.executeQuery("SELECT count(*) FROM jobs WHERE state = 'completed'")) {
          rs.next();
          if (rs.getLong(1) >= jobs) {
            break;
          }
        }
        if (System.nanoTime() - began > Duration.ofMinutes(10).toNanos()) {
          throw new IllegalStateException("the runtime did not complete the jobs in 10 minutes");
        }
        Thread.sleep(5);
      }
    }
    double seconds = (System.nanoTime() - began) / 1e9;
    runtime.stop(Duration.ofSeconds(10));
    return seconds;
  }
}
