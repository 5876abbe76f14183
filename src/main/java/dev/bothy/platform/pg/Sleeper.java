package dev.bothy.platform.pg;

import java.time.Duration;

/**
 * Blocks the calling thread for a duration; a seam so tests can observe waits (such as a retry
 * backoff) without waiting.
 *
 * <p>A sleeper only waits: an interrupt ends the wait with {@link InterruptedException}, and what
 * that means is the caller's to decide. {@link #system()} blocks with {@link Thread#sleep}, which
 * clears the thread's interrupt flag when it throws.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for a duration.
   *
   * @param duration how long
   * @throws InterruptedException when the waiting thread is interrupted
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Returns a sleeper that blocks the calling thread.
   *
   * @return the real sleeper
   */
  static Sleeper system() {
    return duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
  }
}
