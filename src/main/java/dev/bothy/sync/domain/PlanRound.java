package dev.bothy.sync.domain;

import java.util.List;

/**
 * Plans a worker consumer's round from its cursor and the numbers it read: the pure rule of gaps.
 *
 * <ul>
 *   <li>Numbers contiguous from {@code lastSeq + 1}: process all.
 *   <li>{@code lastSeq + 1} below the minimum retained number and the first number equal to it: the
 *       events between were removed by retention; process from the first number and report the lost
 *       range (the round logs it and goes on: stalling would not bring them back).
 *   <li>Any other jump, or a hole inside the batch: {@link ConsumerGap}.
 * </ul>
 */
public final class PlanRound {
  private PlanRound() {}

  /**
   * Plans a round.
   *
   * @param lastSeq the cursor
   * @param seqs the numbers read after it, ascending, not empty
   * @param minRetained the smallest number in the log (read only when the first number does not
   *     follow the cursor; any value when it does)
   * @return the plan
   * @throws ConsumerGap for a hole that retention does not explain
   * @throws IllegalArgumentException for an empty list
   */
  public static RoundPlan plan(long lastSeq, List<Long> seqs, long minRetained) {
    if (seqs.isEmpty()) {
      throw new IllegalArgumentException("a round plans at least one event");
    }
    long first = seqs.get(0);
    long lostFrom = 0;
    long lostTo = 0;
    if (first != lastSeq + 1) {
      boolean retention = lastSeq + 1 < minRetained && first == minRetained;
      if (!retention) {
        throw new ConsumerGap(
            "expected event " + (lastSeq + 1) + " after the cursor, found " + first);
      }
      lostFrom = lastSeq + 1;
      lostTo = minRetained - 1;
    }
    for (int i = 1; i < seqs.size(); i++) {
      if (seqs.get(i) != seqs.get(i - 1) + 1) {
        throw new ConsumerGap(
            "expected event " + (seqs.get(i - 1) + 1) + " in the batch, found " + seqs.get(i));
      }
    }
    return new RoundPlan(seqs, seqs.get(seqs.size() - 1), lostFrom, lostTo);
  }
}
