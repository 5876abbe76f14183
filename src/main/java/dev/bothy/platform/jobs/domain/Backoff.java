package dev.bothy.platform.jobs.domain;

import java.time.Duration;

/**
 * The retry delay after a failed attempt: exponential from {@code jobs.retryBaseDelay}, capped at
 * {@code jobs.retryMaxDelay}, with jitter that takes up to a quarter off, so jobs that failed
 * together do not all come back at once.
 */
public final class Backoff {
  private Backoff() {}

  /**
   * The delay before the next attempt.
   *
   * @param attempt the attempt that failed, from 1
   * @param base the delay after the first attempt (before jitter)
   * @param max the cap
   * @param jitter a number in {@code [0, 1)}; 0 gives the full delay
   * @return {@code min(max, base * 2^(attempt - 1)) * (1 - jitter / 4)}
   */
  public static Duration delay(int attempt, Duration base, Duration max, double jitter) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt starts at 1: " + attempt);
    }
    if (jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException("jitter is in [0, 1): " + jitter);
    }
    long capNanos = max.toNanos();
    long nanos = base.toNanos();
    for (int i = 1; i < attempt && nanos < capNanos; i++) {
      nanos = nanos > capNanos / 2 ? capNanos : nanos * 2;
    }
    nanos = Math.min(nanos, capNanos);
    return Duration.ofNanos(nanos - (long) (nanos * jitter / 4));
  }
}
