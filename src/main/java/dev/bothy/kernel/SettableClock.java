package dev.bothy.kernel;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@link Clock} that moves only when told to; for tests that need exact control of time.
 *
 * <p>Thread-safe: readers always see the last value set.
 *
 * <pre>{@code
 * SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
 * clock.advance(Duration.ofMinutes(5));
 * }</pre>
 */
public final class SettableClock implements Clock {
  private volatile Instant now;

  /**
   * Creates a clock standing at {@code start}.
   *
   * @param start the initial instant, not null
   */
  public SettableClock(Instant start) {
    this.now = Objects.requireNonNull(start, "start");
  }

  @Override
  public Instant now() {
    return now;
  }

  /**
   * Sets the clock to an instant.
   *
   * @param instant the new current instant, not null
   */
  public synchronized void set(Instant instant) {
    this.now = Objects.requireNonNull(instant, "instant");
  }

  /**
   * Moves the clock forward (or back, with a negative duration).
   *
   * @param by how far to move, not null
   * @return the new current instant
   */
  public synchronized Instant advance(Duration by) {
    now = now.plus(Objects.requireNonNull(by, "by"));
    return now;
  }
}
