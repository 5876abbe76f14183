package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.sync.app.ConsumerRunner;
import dev.bothy.sync.app.RoundResult;
import dev.bothy.testing.ConsumerFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The consumers benchmark ({@code bench/run.sh consumers}): a worker consumer's rounds with the
 * probe handler (two jobs per event) over a pre-filled log, against pgbench running the same round
 * as raw SQL; then the wake latency from an append's commit to its jobs' commit.
 */
public final class ConsumersBench {
  private static final int[] BATCHES = {100, 1000};
  private static final int LATENCY_EVENTS = 1000;
  private static final long LATENCY_GAP_NANOS = 5_000_000;

  private ConsumersBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args samples per variant, events in the log (a multiple of 1,000)
   * @throws Exception when the server, pgbench or a round fails
   */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    Path dir = Files.createTempDirectory("bothy-bench-consumers");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    List<Double> latencies = new ArrayList<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      sql(
          server,
          "INSERT INTO event_log (seq, id, type, occurred_at, resource_type, resource_id,"
              + " payload) SELECT g, gen_random_uuid(), 'settings.updated', now(), 'user',"
              + " gen_random_uuid(), '{\"changedKeys\":[\"k\"]}' FROM generate_series(1, "
              + events
              + ") g",
          "UPDATE sequence_counters SET value = " + events + " WHERE name = 'event_seq'",
          "INSERT INTO event_consumer_cursors (name, last_seq) VALUES ('webhooks', 0)",
          "VACUUM ANALYZE event_log");
      try (HikariDataSource pool = BenchSupport.pool(server, 4)) {
        for (int run = 1; run <= runs; run++) {
          System.err.printf("consumers: run %d of %d%n", run, runs);
          for (int batch : BATCHES) {
            reset(server, 0);
            BenchSupport.record(
                samples,
                "pgbench-" + batch,
                BenchSupport.pgbench(server, dir, roundScript(batch), 1, events / batch));
            reset(server, 0);
            BenchSupport.record(samples, "bothy-" + batch, rounds(pool, batch));
          }
        }
        reset(server, events);
        latencies.addAll(latency(server, pool));
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    System.err.println();
    System.err.println(
        "| consumer.batchSize | raw SQL ceiling events/s | Bothy events/s | Bothy / ceiling |");
    System.err.println("|---|---|---|---|");
    for (int batch : BATCHES) {
      double ceiling = events / BenchSupport.median(samples.get("pgbench-" + batch));
      double bothy = events / BenchSupport.median(samples.get("bothy-" + batch));
      System.err.printf("| %d | %.0f | %.0f | %.2f |%n", batch, ceiling, bothy, bothy / ceiling);
    }
    Collections.sort(latencies);
    System.err.println();
    System.err.println("| events | rate | p50 ms | p99 ms | max ms |");
    System.err.println("|---|---|---|---|---|");
    System.err.printf(
        "| %d | %d/s | %.1f | %.1f | %.1f |%n",
        latencies.size(),
        1_000_000_000L / LATENCY_GAP_NANOS,
        percentile(latencies, 0.50),
        percentile(latencies, 0.99),
        latencies.get(latencies.size() - 1));
  }

  private static double percentile(List<Double> sorted, double p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }

  private static void sql(EmbeddedPostgresServer server, String... statements) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String s : statements) {
        st.execute(s);
      }
    }
  }

  private static void reset(EmbeddedPostgresServer server, long cursor) throws Exception {
    sql(
        server,
        "TRUNCATE jobs",
        "UPDATE event_consumer_cursors SET last_seq = " + cursor,
        "VACUUM ANALYZE jobs");
  }

  private static String roundScript(int batch) {
    String events =
        "(SELECT seq FROM event_log WHERE seq > :last_seq ORDER BY seq LIMIT " + batch + ")";
    return String.join(
        "\n",
        "BEGIN;",
        "SELECT last_seq FROM event_consumer_cursors WHERE name = 'webhooks'"
            + " FOR UPDATE SKIP LOCKED \\gset",
        "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
            + " created_at) SELECT gen_random_uuid(), 'sync.consumer_probe', 'default',"
            + " jsonb_build_object('seq', e.seq, 'recipient', r.id), 'available', 25, 1, now(),"
            + " now() FROM "
            + events
            + " e CROSS JOIN (VALUES (gen_random_uuid()), (gen_random_uuid())) r(id);",
        "UPDATE event_consumer_cursors SET last_seq = (SELECT max(seq) FROM "
            + events
            + " x), updated_at = now() WHERE name = 'webhooks';",
        "COMMIT;",
        "");
  }

  private static double rounds(HikariDataSource pool, int batch) {
    ConsumerFixture worker = new ConsumerFixture(pool, batch);
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probe(e -> {}));
    long began = System.nanoTime();
    while (worker.consumers.round(ConsumerName.WEBHOOKS).outcome() != RoundResult.Outcome.IDLE) {
      // drain, as the runner does after a full batch
    }
    return (System.nanoTime() - began) / 1e9;
  }

  private static List<Double> latency(EmbeddedPostgresServer server, HikariDataSource pool)
      throws Exception {
    ConsumerFixture worker = new ConsumerFixture(pool, 1000);
    Map<Long, Long> committed = new ConcurrentHashMap<>();
    Map<Long, Long> handled = new ConcurrentHashMap<>();
    worker.consumers.register(
        ConsumerName.WEBHOOKS,
        worker.probe(
            e -> worker.log.uow.afterCommit(() -> handled.put(e.seq(), System.nanoTime()))));
    ConsumerRunner runner =
        new ConsumerRunner(
            worker.consumers.freeze(),
            worker.consumers::round,
            worker.consumers::cancelRound,
            new ListenerWaker(
                new PoolSettings(
                    BenchSupport.url(server),
                    "bothy_app",
                    null,
                    1,
                    Duration.ofSeconds(5),
                    ListenerWaker.APPLICATION_NAME),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                e -> {
                  throw new IllegalStateException(e);
                }),
            Duration.ofSeconds(1),
            dev.bothy.kernel.Clock.system(),
            dev.bothy.platform.lifecycle.Pause.real(),
            e -> {
              throw new IllegalStateException(e);
            });
    runner.start();
    Thread.sleep(500);
    long next = System.nanoTime();
    for (int i = 0; i < LATENCY_EVENTS; i++) {
      while (System.nanoTime() < next) {
        Thread.onSpinWait();
      }
      next += LATENCY_GAP_NANOS;
      worker.log.uow.run(
          () -> {
            worker.log.appender.append(dev.bothy.testing.EventLogFixture.drafts(Ids.newId(), 1));
            return null;
          });
      long now = System.nanoTime();
      long head = worker.log.log.head();
      committed.put(head, now);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (handled.size() < committed.size() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    runner.stop(Duration.ofSeconds(5));
    List<Double> millis = new ArrayList<>();
    committed.forEach(
        (seq, at) -> {
          Long done = handled.get(seq);
          if (done != null) {
            millis.add((done - at) / 1e6);
          }
        });
    return millis;
  }
}
