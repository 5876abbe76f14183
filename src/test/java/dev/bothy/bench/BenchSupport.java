package dev.bothy.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.Migrator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the benchmark mains share: the server, pgbench, the writers, the rows and medians. */
final class BenchSupport {
  private static final Pattern TPS =
      Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

  private BenchSupport() {}

  /** Migrates the server; Liquibase's progress goes to stderr, stdout carries only rows. */
  static void migrate(EmbeddedPostgresServer server) {
    PrintStream rows = System.out;
    System.setOut(System.err);
    try {
      Migrator.migrate(server.superuserDataSource());
    } finally {
      System.setOut(rows);
    }
  }

  /** A pool of {@code bothy_app} with one connection per writer. */
  static HikariDataSource pool(EmbeddedPostgresServer server, int writers) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.jdbcUrl("postgres"));
    config.setUsername("bothy_app");
    config.setMaximumPoolSize(writers);
    config.setPoolName("bench");
    return new HikariDataSource(config);
  }

  /**
   * Runs a pgbench script and returns the seconds for the transactions at pgbench's own rate,
   * without its process start and connection set-up (as Bothy's timing excludes the warmed pool's).
   */
  static double pgbench(
      EmbeddedPostgresServer server, Path dir, String script, int writers, int units)
      throws Exception {
    Path file = Files.createTempFile(dir, "script", ".sql");
    Files.writeString(file, script);
    List<String> command =
        List.of(
            "pgbench",
            "-n",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.port()),
            "-U",
            "bothy_app",
            "-c",
            Integer.toString(writers),
            "-j",
            Integer.toString(Math.min(writers, 4)),
            "-t",
            Integer.toString(units / writers),
            "-f",
            file.toString(),
            "postgres");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("pgbench failed:\n" + out);
    }
    Matcher tps = TPS.matcher(out);
    if (!tps.find()) {
      throw new IllegalStateException("pgbench printed no tps:\n" + out);
    }
    return (units / writers * writers) / Double.parseDouble(tps.group(1));
  }

  /** Runs {@code units / writers} units on each of {@code writers} threads; returns seconds. */
  static double writers(int writers, int units, Callable<?> unit) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      long began = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        done.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < units / writers; i++) {
                    unit.call();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(10, TimeUnit.MINUTES);
      }
      return (System.nanoTime() - began) / 1e9;
    } finally {
      threads.shutdownNow();
    }
  }

  /** Prints one result row and keeps the sample. */
  static void record(Map<String, List<Double>> samples, String variant, double seconds) {
    samples.computeIfAbsent(variant, v -> new ArrayList<>()).add(seconds);
    System.out.printf("%s\t%.4f%n", variant, seconds);
    System.out.flush();
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
