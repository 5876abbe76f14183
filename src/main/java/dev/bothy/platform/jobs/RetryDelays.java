package dev.bothy.platform.jobs;

import java.time.Duration;

/**
 * The delay before the next attempt of a job whose attempt failed, for a kind whose retries follow
 * a schedule of their own (such as the fixed schedule of outgoing webhooks) instead of the
 * runtime's exponential backoff of {@code jobs.retryBaseDelay} and {@code jobs.retryMaxDelay}.
 *
 * <p>Example: {@code JobKind.builder(...).retryDelays((failed, jitter) ->
 * Duration.ofSeconds(5)).build()}.
 */
@FunctionalInterface
public interface RetryDelays {
  /**
   * The delay after a failed attempt. Not asked after the last attempt: that failure discards the
   * job.
   *
   * @param failedAttempts the attempts that failed so far, from 1
   * @param jitter01 a random number in {@code [0, 1)} the delay may use to spread retries
   * @return the delay, zero or more
   */
  Duration delayAfter(int failedAttempts, double jitter01);
}
