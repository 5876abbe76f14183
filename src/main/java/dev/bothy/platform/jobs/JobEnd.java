package dev.bothy.platform.jobs;

import java.time.Duration;

/**
 * Thrown by a work function to snooze, retry no sooner than a time, or cancel its job; made by
 * {@link JobContext#snooze}, {@link JobContext#retryNoSoonerThan} and {@link JobContext#cancel}. It
 * carries no stack trace: it is control flow, not an error.
 */
public final class JobEnd extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What the runtime does with the job. */
  public enum Verb {
    /** Run again after the delay, the attempt not counted. */
    SNOOZE,
    /**
     * A failed attempt, counted like a thrown exception (the last one discards the job), run again
     * after the later of the delay and the kind's retry delay.
     */
    RETRY,
    /** Finish as cancelled. */
    CANCEL
  }

  private final Verb verb;
  private final transient Duration delay;

  JobEnd(Verb verb, Duration delay, String message) {
    super(message, null, false, false);
    this.verb = verb;
    this.delay = delay;
  }

  /**
   * The verb.
   *
   * @return snooze, retry or cancel
   */
  public Verb verb() {
    return verb;
  }

  /**
   * The snooze delay, or the least wait before a retry.
   *
   * @return the delay; zero for a cancel
   */
  public Duration delay() {
    return delay;
  }
}
