package dev.bothy.sync.domain;

import java.util.List;

/**
 * What a consumer round processes.
 *
 * @param process the numbers to hand to the handler, contiguous, in order
 * @param newLastSeq the cursor after the round: the last number of {@code process}
 * @param lostFrom the first number lost to retention, or 0 when nothing was lost
 * @param lostTo the last number lost to retention, or 0 when nothing was lost
 */
public record RoundPlan(List<Long> process, long newLastSeq, long lostFrom, long lostTo) {
  /** Copies the list. */
  public RoundPlan {
    process = List.copyOf(process);
  }

  /**
   * Whether events between the cursor and the batch fell out of the retention window.
   *
   * @return true when {@code lostFrom} is set
   */
  public boolean lostEvents() {
    return lostFrom > 0;
  }
}
