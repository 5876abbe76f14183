package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.instance.CounterName;
import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.instance.app.CounterService;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.platform.pg.TxSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The counters benchmark ({@code bench/run.sh counters}): units of work that each commit one {@code
 * advance(event_seq, 1)} in the sync hook, against pgbench running the same SQL shape (the counter
 * {@code UPDATE ... RETURNING} and the commit; the unit's timeouts are set once per connection, ADR
 * 0028) on the same embedded PostgreSQL, at 1, 8 and 32 concurrent writers.
 *
 * <p>Prints one row per sample on stdout, {@code variant<TAB>seconds} for a fixed number of units,
 * and a table of rates per writer count on stderr.
 */
public final class CountersBench {
  private static final int[] WRITERS = {1, 8, 32};
  private static final TxSettings SETTINGS =
      new TxSettings(
          Duration.ofSeconds(30),
          Duration.ofSeconds(5),
          Duration.ofSeconds(60),
          5,
          Duration.ofMillis(10),
          Duration.ofSeconds(1));
  private static final String PGBENCH_SCRIPT =
      String.join(
          "\n",
          "BEGIN;",
          "UPDATE sequence_counters SET value = value + 1 WHERE name = 'event_seq' RETURNING value;",
          "COMMIT;",
          "");

  private static final Pattern TPS =
      Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

  private CountersBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args the number of samples per variant, and the units per sample
   * @throws Exception when the server, pgbench or a unit fails
   */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int units = args.length > 1 ? Integer.parseInt(args[1]) : 3200;
    Path dir = Files.createTempDirectory("bothy-bench-counters");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      for (int run = 1; run <= runs; run++) {
        System.err.printf("counters: run %d of %d%n", run, runs);
        for (int writers : WRITERS) {
          BenchSupport.record(
              samples,
              "pgbench-" + writers,
              BenchSupport.pgbench(server, dir, PGBENCH_SCRIPT, writers, units));
          BenchSupport.record(samples, "bothy-" + writers, bothy(server, writers, units));
        }
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    System.err.println();
    System.err.println("| writers | pgbench units/s | Bothy units/s | Bothy / pgbench |");
    System.err.println("|---|---|---|---|");
    for (int writers : WRITERS) {
      int done = units / writers * writers;
      double pg = done / BenchSupport.median(samples.get("pgbench-" + writers));
      double bothy = done / BenchSupport.median(samples.get("bothy-" + writers));
      System.err.printf("| %d | %.0f | %.0f | %.2f |%n", writers, pg, bothy, bothy / pg);
    }
  }

  private static double bothy(EmbeddedPostgresServer server, int writers, int units)
      throws Exception {
    try (HikariDataSource pool = BenchSupport.pool(server, writers)) {
      HookRegistry hooks = new HookRegistry();
      PgUnitOfWork uow =
          new PgUnitOfWork(pool, SETTINGS, hooks, Sleeper.system(), ThreadLocalRandom.current());
      CounterService counters = new CounterService(uow, new JooqCounterRepository());
      hooks.register(
          Phase.SYNC, "bench.event-seq", () -> counters.advance(CounterName.EVENT_SEQ, 1));
      // Warm the pool and the code path before timing.
      for (int i = 0; i < writers; i++) {
        uow.run(() -> null);
      }
      return BenchSupport.writers(writers, units, () -> uow.run(() -> null));
    }
  }
}
