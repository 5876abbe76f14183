package dev.bothy.bus.domain;

import java.time.Duration;
import java.util.Objects;

/**
 * The wait before a reconnection attempt to NATS: {@code bus.nats.reconnectWait} doubled after each
 * failed attempt, capped at {@code bus.nats.reconnectBackoffCap}, plus up to a fifth more at random
 * (still capped) so that many processes that lost the same server do not knock at the same moment.
 *
 * @param first the first wait
 * @param cap the longest wait
 */
public record ReconnectBackoff(Duration first, Duration cap) {
  private static final double JITTER = 0.2;

  /** Checks that the waits are positive and the cap is not below the first wait. */
  public ReconnectBackoff {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(cap, "cap");
    if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
      throw new IllegalArgumentException("the first wait must be positive and not above the cap");
    }
  }

  /**
   * Returns the wait before an attempt.
   *
   * @param attempt the attempt, from 1
   * @param random a number in [0, 1) that picks the jitter
   * @return the wait, between {@link #first()} and {@link #cap()}
   */
  public Duration delay(long attempt, double random) {
    long firstNanos = first.toNanos();
    long capNanos = cap.toNanos();
    // Doubling past 62 shifts overflows; the cap is reached long before anyway.
    int doublings = (int) Math.min(Math.max(attempt, 1) - 1, 62);
    long base =
        firstNanos > (capNanos >> doublings)
            ? capNanos
            : Math.min(capNanos, firstNanos << doublings);
    long jittered = base + (long) (base * JITTER * Math.min(Math.max(random, 0), 1));
    return Duration.ofNanos(Math.min(capNanos, jittered));
  }
}
