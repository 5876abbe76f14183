package dev.bothy.bench;

import dev.bothy.wire.FaultReport;
import dev.bothy.wire.FaultTrials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The process-level fault trials of {@code bench/run.sh faults N} (issue 20): N fault trials, round
 * robin over the fault kinds, with a trial without a fault (the baseline {@code none}) before each
 * round, on the harness {@link FaultTrials}. Prints one row per trial, {@code kind<TAB>seconds to
 * recover}, and writes the table (trials, lost, doubled, not recovered, p50, p99, max per kind) to
 * the file of its second argument. Exits non-zero when a trial lost, doubled or did not recover,
 * after writing the table.
 *
 * <p>Arguments: trials (fault trials, at least 1), the table's file. {@code BENCH_FAULTS_SEED}
 * (default 20261220) seeds the moments and targets of the faults.
 */
public final class FaultsBench {
  private FaultsBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !args[0].matches("[1-9][0-9]*")) {
      throw new IllegalArgumentException("usage: FaultsBench trials table-file");
    }
    int faults = Integer.parseInt(args[0]);
    Path table = Path.of(args[1]);
    long seed = Long.parseLong(System.getenv().getOrDefault("BENCH_FAULTS_SEED", "20261220"));
    Path dir = Files.createTempDirectory("bothy-bench-faults");
    List<FaultTrials.Kind> kinds = FaultTrials.Kind.faults();
    List<FaultTrials.Outcome> outcomes = new ArrayList<>();
    long started = System.nanoTime();
    String streamCheck;
    try (FaultTrials trials =
        FaultTrials.start(
            new FaultTrials.Settings(
                dir,
                FaultTrials.BusTransport.NATS,
                Duration.ofMillis(500),
                Duration.ofSeconds(90),
                Duration.ofSeconds(120)))) {
      // Stopped by its PID (SIGTERM), the run still stops the processes it started.
      Thread hook = new Thread(trials::close, "faults-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      Random random = new Random(seed);
      for (int i = 0; i < faults; i++) {
        if (i % kinds.size() == 0) {
          run(trials, FaultTrials.Kind.NONE, random, outcomes, faults);
        }
        run(trials, kinds.get(i % kinds.size()), random, outcomes, faults);
        // The table so far, so a run stopped early (by its PID) still leaves what it measured.
        Files.writeString(
            table,
            FaultReport.table(outcomes)
                + String.format(
                    Locale.ROOT,
                    "%nStopped early: %d of %d fault trials done; no whole-stream check.%n",
                    i + 1,
                    faults));
      }
      streamCheck = trials.streamHoldsTheLog();
      Runtime.getRuntime().removeShutdownHook(hook);
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    String text =
        FaultReport.table(outcomes)
            + String.format(
                Locale.ROOT,
                "%n%d fault trials and %d without a fault in %.1f minutes, seed %d; the whole"
                    + " `EVENTS` stream against the log at the end: %s.%n",
                faults,
                outcomes.size() - faults,
                (System.nanoTime() - started) / 60e9,
                seed,
                streamCheck == null ? "every event once, in order" : streamCheck);
    Files.writeString(table, text);
    System.err.print(text);
    boolean clean =
        streamCheck == null
            && outcomes.stream().allMatch(o -> o.recovered() && o.lost() == 0 && o.doubled() == 0);
    if (!clean) {
      System.err.println("faults: a trial lost, doubled or did not recover (see above)");
      System.exit(1);
    }
  }

  private static void run(
      FaultTrials trials,
      FaultTrials.Kind kind,
      Random random,
      List<FaultTrials.Outcome> outcomes,
      int faults)
      throws Exception {
    FaultTrials.Outcome o = trials.trial(kind, random);
    outcomes.add(o);
    System.out.printf(Locale.ROOT, "%s\t%.3f%n", kind.code(), o.recoverSeconds());
    System.out.flush();
    System.err.printf(
        Locale.ROOT,
        "faults: %d/%d %s %.2f s %s%s%n",
        outcomes.stream().filter(x -> x.kind() != FaultTrials.Kind.NONE).count(),
        faults,
        kind.code(),
        o.recoverSeconds(),
        o.recovered() ? "recovered" : "NOT RECOVERED lost=" + o.lost() + " doubled=" + o.doubled(),
        " (" + o.detail() + ")");
  }
}
