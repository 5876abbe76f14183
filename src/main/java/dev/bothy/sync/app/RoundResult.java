package dev.bothy.sync.app;

/**
 * How a consumer round ended.
 *
 * @param outcome locked, idle or processed
 * @param processed the events handed to the handler
 * @param full whether the batch was full, so more events are likely waiting
 */
public record RoundResult(Outcome outcome, int processed, boolean full) {
  /** The outcomes. */
  public enum Outcome {
    /** Another round holds the cursor row; nothing done. */
    LOCKED,
    /** No event after the cursor; nothing written. */
    IDLE,
    /** Events handled and the cursor moved, in one commit. */
    PROCESSED
  }

  /** A locked round. */
  public static final RoundResult LOCKED = new RoundResult(Outcome.LOCKED, 0, false);

  /** An idle round. */
  public static final RoundResult IDLE = new RoundResult(Outcome.IDLE, 0, false);
}
