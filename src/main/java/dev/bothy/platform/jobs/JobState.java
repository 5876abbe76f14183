package dev.bothy.platform.jobs;

import java.util.Locale;

/**
 * The state of a job row; the module README draws the transitions.
 *
 * <p>{@code available}, {@code scheduled} and {@code retryable} jobs are fetched once their {@code
 * scheduled_at} has passed; {@code completed}, {@code discarded} (the dead letters) and {@code
 * cancelled} are final and removed by the cleaner after their retention.
 */
public enum JobState {
  /** Waiting to be fetched. */
  AVAILABLE,
  /** Inserted with a run-at in the future, or snoozed. */
  SCHEDULED,
  /** Fetched by a worker, which works it now. */
  RUNNING,
  /** Failed an attempt; waiting for its retry. */
  RETRYABLE,
  /** Worked successfully. */
  COMPLETED,
  /** Exhausted its attempts: a dead letter, kept with its error history. */
  DISCARDED,
  /** Cancelled by its work function or an operator. */
  CANCELLED;

  /**
   * The name stored in the {@code state} column.
   *
   * @return the lower-case name, for example {@code "available"}
   */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether a job in this state is finished and only waits for the cleaner.
   *
   * @return true for completed, discarded and cancelled
   */
  public boolean isFinal() {
    return this == COMPLETED || this == DISCARDED || this == CANCELLED;
  }

  /**
   * Tells whether an operator may retry a job in this state ({@code JobAdmin.retry}).
   *
   * @return true for discarded, retryable, scheduled and cancelled
   */
  public boolean operatorMayRetry() {
    return this == DISCARDED || this == RETRYABLE || this == SCHEDULED || this == CANCELLED;
  }

  /**
   * Tells whether an operator may cancel a job in this state ({@code JobAdmin.cancel}).
   *
   * @return true unless the job finished
   */
  public boolean operatorMayCancel() {
    return !isFinal();
  }

  /**
   * Reads a stored or typed state name.
   *
   * @param code the name, any case
   * @return the state
   * @throws IllegalArgumentException when the name is not a state; the message lists the states
   */
  public static JobState fromCode(String code) {
    for (JobState s : values()) {
      if (s.code().equalsIgnoreCase(code)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "unknown job state '"
            + code
            + "'; one of available, scheduled, running, retryable, completed, discarded,"
            + " cancelled");
  }
}
