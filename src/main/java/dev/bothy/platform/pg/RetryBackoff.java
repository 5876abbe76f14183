package dev.bothy.platform.pg;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Jittered exponential backoff between the attempts of a unit of work.
 *
 * <p>The delay before attempt {@code k + 1} is drawn uniformly from {@code [d/2, d]} where {@code d
 * = min(base * 2^(k-1), max)}: the spread keeps units that failed together from retrying in lock
 * step, the lower bound keeps the growth.
 */
final class RetryBackoff {
  private final Duration base;
  private final Duration max;
  private final RandomGenerator random;

  RetryBackoff(Duration base, Duration max, RandomGenerator random) {
    this.base = base;
    this.max = max;
    this.random = random;
  }

  /**
   * Returns the delay after a failed attempt.
   *
   * @param failedAttempt the number of the attempt that failed, from 1
   * @return the time to wait before the next attempt
   */
  Duration after(int failedAttempt) {
    long baseNanos = base.toNanos();
    long maxNanos = max.toNanos();
    int shift = Math.min(failedAttempt - 1, 62);
    long ceiling =
        baseNanos > (maxNanos >> shift) ? maxNanos : Math.min(baseNanos << shift, maxNanos);
    if (ceiling <= 1) {
      return Duration.ofNanos(ceiling);
    }
    long floor = ceiling / 2;
    return Duration.ofNanos(floor + random.nextLong(ceiling - floor + 1));
  }
}
