package dev.bothy.platform.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What a work function knows about the job it works, and the verbs that end it other than by
 * success or failure.
 *
 * @param id the job's id
 * @param kind the kind's name
 * @param attempt this attempt, from 1
 * @param maxAttempts the attempts after which a failure discards the job
 * @param scheduledAt when the job became due
 */
public record JobContext(UUID id, String kind, int attempt, int maxAttempts, Instant scheduledAt) {
  /** Checks the fields. */
  public JobContext {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(scheduledAt, "scheduledAt");
  }

  /**
   * Ends this attempt without counting it and runs the job again after {@code delay}: for work that
   * waits on something outside, such as a rate limit.
   *
   * <p>Use as {@code throw context.snooze(Duration.ofMinutes(1));}.
   *
   * @param delay how long to wait; zero or more
   * @return the exception to throw from the work function
   */
  public JobEnd snooze(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("a snooze delay must not be negative: " + delay);
    }
    return new JobEnd(JobEnd.Verb.SNOOZE, delay, "snoozed");
  }

  /**
   * Ends this attempt as failed, counted toward {@code maxAttempts} like a thrown exception (the
   * last attempt discards the job), and runs the next attempt no sooner than {@code delay} after
   * now: after the later of it and the kind's retry delay. For an answer such as HTTP's {@code
   * Retry-After}, which must neither shorten the kind's schedule nor add attempts to it.
   *
   * <p>Use as {@code throw context.retryNoSoonerThan(Duration.ofMinutes(2), "retry_after");}.
   *
   * @param delay the least wait; zero or more
   * @param reason the error history's message, for operators
   * @return the exception to throw from the work function
   */
  public JobEnd retryNoSoonerThan(Duration delay, String reason) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("a retry delay must not be negative: " + delay);
    }
    return new JobEnd(JobEnd.Verb.RETRY, delay, Objects.requireNonNull(reason, "reason"));
  }

  /**
   * Ends the job for good as {@code cancelled}, with the reason in its error history: for work that
   * has become pointless, such as a webhook whose endpoint was deleted.
   *
   * <p>Use as {@code throw context.cancel("endpoint deleted");}.
   *
   * @param reason why, for operators
   * @return the exception to throw from the work function
   */
  public JobEnd cancel(String reason) {
    return new JobEnd(JobEnd.Verb.CANCEL, Duration.ZERO, Objects.requireNonNull(reason, "reason"));
  }
}
