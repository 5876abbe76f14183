package dev.bothy.wire;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table of the fault trials: per kind, trials, lost, doubled, not recovered, recovery times.
 */
public final class FaultReport {
  private FaultReport() {}

  /**
   * Renders the outcomes as a markdown table, one row per kind in the order of {@link
   * FaultTrials.Kind}. Percentiles are nearest-rank over every trial of the kind (a trial that did
   * not recover counts with the time it was given); with fewer than 100 trials p99 is the maximum.
   *
   * @param outcomes the trials' outcomes
   * @return the table, ending with a line break
   */
  public static String table(Collection<FaultTrials.Outcome> outcomes) {
    Map<FaultTrials.Kind, List<FaultTrials.Outcome>> byKind = new LinkedHashMap<>();
    for (FaultTrials.Kind kind : FaultTrials.Kind.values()) {
      byKind.put(kind, new ArrayList<>());
    }
    outcomes.forEach(o -> byKind.get(o.kind()).add(o));
    StringBuilder b =
        new StringBuilder(
            "| fault | trials | lost | doubled | not recovered | recover p50 (s) | recover p99 (s)"
                + " | max (s) |\n|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<FaultTrials.Kind, List<FaultTrials.Outcome>> e : byKind.entrySet()) {
      List<FaultTrials.Outcome> list = e.getValue();
      if (list.isEmpty()) {
        continue;
      }
      double[] seconds =
          list.stream().mapToDouble(FaultTrials.Outcome::recoverSeconds).sorted().toArray();
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %d | %.2f | %.2f | %.2f |%n",
              e.getKey().code(),
              list.size(),
              list.stream().mapToLong(FaultTrials.Outcome::lost).sum(),
              list.stream().mapToLong(FaultTrials.Outcome::doubled).sum(),
              list.stream().filter(o -> !o.recovered()).count(),
              rank(seconds, 0.50),
              rank(seconds, 0.99),
              seconds[seconds.length - 1]));
    }
    return b.toString();
  }

  /** The nearest-rank percentile of sorted values. */
  static double rank(double[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
