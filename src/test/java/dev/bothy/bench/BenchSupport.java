package dev.bothy.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.testing.PgExtension;
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
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the benchmark mains share: the server, pgbench, the writers, the rows and medians. */
final class BenchSupport {
  private static final Pattern PROCESSED =
      Pattern.compile("number of transactions actually processed: ([0-9]+)");
  private static final Pattern PROGRESS = Pattern.compile("progress: ([0-9.]+) s, ([0-9.]+) tps");
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
    PgExtension.giveRolesThePassword(server);
  }

  /** The URL of the server's {@code postgres} database with its password (D-SEC-2). */
  static String url(EmbeddedPostgresServer server) {
    return PgExtension.urlWithPassword(server, "postgres");
  }

  /** A pool of {@code bothy_app} with one connection per writer. */
  static HikariDataSource pool(EmbeddedPostgresServer server, int writers) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url(server));
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
    String out = runPgbench(server, dir, script, writers, "-t", Integer.toString(units / writers));
    Matcher tps = TPS.matcher(out);
    if (!tps.find()) {
      throw new IllegalStateException("pgbench printed no tps:\n" + out);
    }
    return (units / writers * writers) / Double.parseDouble(tps.group(1));
  }

  /**
   * Runs a pgbench script for {@code warmSeconds + measureSeconds} and returns its rate over the
   * last {@code measureSeconds} only, from pgbench's per-second progress: pgbench opens new
   * connections on every run, and their first seconds pay for new backends (catalog caches, the
   * first touch of every shared buffer page), which a pool that lives as long as the service does
   * not. Comparable with units on a warm pool.
   *
   * @return the rate (transactions per second, the mean of the measured seconds) and the
   *     transactions of the whole run, warm-up included
   */
  static Steady pgbenchSteady(
      EmbeddedPostgresServer server,
      Path dir,
      String script,
      int writers,
      int warmSeconds,
      int measureSeconds)
      throws Exception {
    String out =
        runPgbench(
            server,
            dir,
            script,
            writers,
            "-T",
            Integer.toString(warmSeconds + measureSeconds),
            "-P",
            "1");
    Matcher progress = PROGRESS.matcher(out);
    double sum = 0;
    int seconds = 0;
    while (progress.find()) {
      if (Double.parseDouble(progress.group(1)) > warmSeconds) {
        sum += Double.parseDouble(progress.group(2));
        seconds++;
      }
    }
    if (seconds == 0) {
      throw new IllegalStateException("pgbench printed no progress after the warm-up:\n" + out);
    }
    Matcher processed = PROCESSED.matcher(out);
    return new Steady(sum / seconds, processed.find() ? Long.parseLong(processed.group(1)) : 0);
  }

  /**
   * Runs pgbench as {@code bothy_app} with {@code writers} clients on up to 4 threads and the given
   * run options ({@code -t N}, or {@code -T S -P 1}); returns what it printed.
   */
  private static String runPgbench(
      EmbeddedPostgresServer server, Path dir, String script, int writers, String... run)
      throws Exception {
    Path file = Files.createTempFile(dir, "script", ".sql");
    Files.writeString(file, script);
    List<String> command =
        new ArrayList<>(
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
                Integer.toString(Math.min(writers, 4))));
    command.addAll(List.of(run));
    command.addAll(List.of("-f", file.toString(), "postgres"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    // libpq reads it from the environment, which no other user can see (D-SEC-2).
    builder.environment().put("PGPASSWORD", server.password());
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("pgbench failed:\n" + out);
    }
    return out;
  }

  /** What {@link #pgbenchSteady} measured. */
  record Steady(double tps, long transactions) {}

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

  /**
   * The fields of a /proc {@code stat} file after the process or thread name: state(0) ppid(1) ...
   * utime(11) stime(12) cutime(13) cstime(14), times in clock ticks of 10 ms. The name may hold
   * spaces and parentheses, so the fields start after its last ')'.
   */
  static String[] statFields(Path stat) throws IOException {
    String text = Files.readString(stat);
    return text.substring(text.lastIndexOf(')') + 2).split(" ");
  }

  /** User and system clock ticks (10 ms each) of a /proc {@code stat} file. */
  static long cpuTicks(Path stat) throws IOException {
    String[] f = statFields(stat);
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /**
   * CPU time in nanoseconds the JIT compiler threads (HotSpot's C1 and C2) of process {@code pid}
   * used so far, from /proc (10 ms ticks), or -1 where /proc cannot be read. CPU time and not the
   * JVM's compilation time, which counts the wall time of each compilation: on 2 busy cores a
   * preempted compiler thread's wall time overstates what it takes from the other work.
   */
  static long compilerCpuNanos(long pid) {
    long ticks = 0;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
            ticks += cpuTicks(task.resolve("stat"));
          }
        } catch (IOException gone) {
          // The thread ended between the listing and the read: nothing left to count.
        }
      }
      return ticks * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * The machine's busy and total jiffies so far from /proc/stat (busy: all but idle and iowait), or
   * {-1, -1} where it cannot be read; {@link #busyShare} turns two of them into a share.
   */
  static long[] machineJiffies() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      return new long[] {total - idle, total};
    } catch (IOException | RuntimeException e) {
      return new long[] {-1, -1};
    }
  }

  /** The share of the machine that was busy since {@code before}, or NaN where unknown. */
  static double busyShare(long[] before) {
    long[] now = machineJiffies();
    if (before[0] < 0 || now[0] < 0 || now[1] == before[1]) {
      return Double.NaN;
    }
    return (double) (now[0] - before[0]) / (now[1] - before[1]);
  }

  /**
   * Runs warm-up passes until the JIT is quiet, so the samples after it measure compiled code and
   * not the compilers competing with it for the cores (a short fixed warm-up left C2 on a third of
   * the machine through every sample of the webhooks benchmark). Stops after the first pass whose
   * compiler threads used less than {@code quietShare} of the machine (their CPU time over the
   * pass's wall time times the available processors), or after {@code maxPasses} passes, and says
   * which on stderr.
   *
   * @param bench the benchmark's name, for the progress lines
   * @param maxPasses at most this many passes, one or more
   * @param quietShare the share of the machine the compilers may use in a quiet pass
   * @param pass one pass of every variant, not recorded
   */
  static void warmUp(String bench, int maxPasses, double quietShare, Callable<?> pass)
      throws Exception {
    long self = ProcessHandle.current().pid();
    warmUp(bench, maxPasses, quietShare, () -> compilerCpuNanos(self), pass);
  }

  /**
   * As {@link #warmUp(String, int, double, Callable)}, with the compilers of other processes: the
   * ones {@code compilerNanos} sums (the CPU nanoseconds their compiler threads used so far, or -1
   * where that cannot be read), such as a benchmark's worker processes.
   *
   * @param compilerNanos the compiler threads' CPU so far of the processes the passes warm
   */
  static void warmUp(
      String bench, int maxPasses, double quietShare, LongSupplier compilerNanos, Callable<?> pass)
      throws Exception {
    if (maxPasses < 1) {
      throw new IllegalArgumentException("warm-up passes must be one or more");
    }
    int cores = Runtime.getRuntime().availableProcessors();
    for (int n = 1; ; n++) {
      long compiledBefore = compilerNanos.getAsLong();
      long began = System.nanoTime();
      pass.call();
      long wall = System.nanoTime() - began;
      long compiled = compilerNanos.getAsLong();
      if (compiledBefore < 0 || compiled < 0) {
        // Without /proc there is no telling: all passes run.
        System.err.printf(
            "%s: warm-up pass %d of %d, not recorded: %.1f s, JIT share unknown (no /proc)%n",
            bench, n, maxPasses, wall / 1e9);
        if (n == maxPasses) {
          return;
        }
        continue;
      }
      double share = (compiled - compiledBefore) / ((double) wall * cores);
      System.err.printf(
          "%s: warm-up pass %d of at most %d, not recorded: %.1f s, JIT compilers on %.1f percent"
              + " of the machine%n",
          bench, n, maxPasses, wall / 1e9, share * 100);
      if (share < quietShare) {
        return;
      }
      if (n == maxPasses) {
        System.err.printf(
            "%s: the JIT is still busy after %d warm-up passes; the samples include"
                + " compilation (raise BENCH_WARMUP_PASSES)%n",
            bench, n);
        return;
      }
    }
  }

  /** Prints one result row and keeps the sample. */
  static void record(Map<String, List<Double>> samples, String variant, double seconds) {
    samples.computeIfAbsent(variant, v -> new ArrayList<>()).add(seconds);
    System.out.printf("%s\t%.4f%n", variant, seconds);
    System.out.flush();
  }

  /**
   * Units per second from the median sample of a variant, or NaN when the variant did not run (left
   * out through {@code bench.variants}).
   */
  static double rate(Map<String, List<Double>> samples, String variant, int units) {
    List<Double> values = samples.get(variant);
    return values == null ? Double.NaN : units / median(values);
  }

  /**
   * A comma-separated list of positive integers from a system property, for running part of a
   * benchmark while looking into one cell ({@code -Dbench.writers=8,32}); the defaults otherwise.
   */
  static int[] ints(String property, int... defaults) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      return defaults;
    }
    return java.util.Arrays.stream(value.split(","))
        .mapToInt(v -> Integer.parseInt(v.trim()))
        .toArray();
  }

  /**
   * CPU time so far, in nanoseconds, of this JVM and of the PostgreSQL server whose data directory
   * is given (the postmaster with its reaped children, plus its live children), from /proc; the
   * server's figure is -1 where /proc cannot be read. For telling where a variant spends the two
   * cores, printed beside the samples.
   */
  static long[] cpuNanos(Path data) {
    long jvm =
        ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    try {
      String postmaster = Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim();
      long ticks = 0;
      try (var procs = Files.list(Path.of("/proc"))) {
        for (Path proc : (Iterable<Path>) procs::iterator) {
          String name = proc.getFileName().toString();
          if (!name.chars().allMatch(Character::isDigit)) {
            continue;
          }
          String[] f;
          try {
            f = statFields(proc.resolve("stat"));
          } catch (IOException gone) {
            continue;
          }
          if (name.equals(postmaster)) {
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
          } else if (f[1].equals(postmaster)) {
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
          }
        }
      }
      String[] own = statFields(Path.of("/proc/self/stat"));
      long children = Long.parseLong(own[13]) + Long.parseLong(own[14]);
      return new long[] {jvm, ticks * 10_000_000L, children * 10_000_000L};
    } catch (IOException | RuntimeException e) {
      return new long[] {jvm, -1, -1};
    }
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
