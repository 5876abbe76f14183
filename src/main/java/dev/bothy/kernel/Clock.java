package dev.bothy.kernel;

import java.time.Instant;

/**
 * The source of the current time for all of Bothy's logic.
 *
 * <p>Code never calls {@link Instant#now()} directly: it receives a {@code Clock}, so tests can
 * drive time with a {@link SettableClock}.
 */
@FunctionalInterface
public interface Clock {

  /**
   * Returns the current instant.
   *
   * @return now, as this clock sees it
   */
  Instant now();

  /**
   * Returns the clock of the operating system.
   *
   * @return a clock backed by {@link java.time.Clock#systemUTC()}
   */
  static Clock system() {
    java.time.Clock utc = java.time.Clock.systemUTC();
    return utc::instant;
  }
}
