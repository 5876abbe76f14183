package dev.bothy.platform.pg;

import java.time.Duration;

/**
 * Waits between retry attempts; a seam so tests can observe backoff without waiting.
 *
 * <p>The default sleeps the calling thread and turns an interrupt into an {@code unavailable}
 * error, keeping the interrupt flag set.
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
