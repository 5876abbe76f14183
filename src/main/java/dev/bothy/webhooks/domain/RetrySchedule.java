package dev.bothy.webhooks.domain;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * When a failed delivery is tried again: Svix's schedule, 5 seconds, 5 minutes, 30 minutes, 2
 * hours, 5 hours, 10 hours and 10 hours after the first, second, ... seventh failure, so a message
 * is tried {@value #MAX_ATTEMPTS} times over about 27 and a half hours. Each delay is spread by
 * plus or minus {@value #JITTER_PERCENT} percent, so subscriptions that failed together (a
 * receiver's outage) do not all come back in the same second.
 */
public final class RetrySchedule {
  /** The delays after the first, second, ... failure. */
  public static final List<Duration> DELAYS =
      List.of(
          Duration.ofSeconds(5),
          Duration.ofMinutes(5),
          Duration.ofMinutes(30),
          Duration.ofHours(2),
          Duration.ofHours(5),
          Duration.ofHours(10),
          Duration.ofHours(10));

  /** The first attempt and one per delay. */
  public static final int MAX_ATTEMPTS = 8;

  /** How far a delay may move either way, in percent of it. */
  public static final int JITTER_PERCENT = 20;

  private static final RetrySchedule STANDARD = new RetrySchedule();

  private RetrySchedule() {}

  /**
   * Returns the schedule of the issue (Svix's).
   *
   * @return the one schedule
   */
  public static RetrySchedule standard() {
    return STANDARD;
  }

  /**
   * Returns the wait before the next attempt.
   *
   * @param failedAttempts how many attempts of this message have failed so far, from 1
   * @param jitter01 a uniform random number in {@code [0, 1]}: 0 gives the shortest wait, 0.5 the
   *     schedule's value, 1 the longest
   * @return the wait, or empty when the schedule is exhausted (a dead letter)
   * @throws IllegalArgumentException when {@code failedAttempts} is below 1 or the jitter lies
   *     outside {@code [0, 1]}
   */
  public Optional<Duration> delayAfter(int failedAttempts, double jitter01) {
    if (failedAttempts < 1) {
      throw new IllegalArgumentException("failedAttempts starts at 1, got " + failedAttempts);
    }
    if (!(jitter01 >= 0.0 && jitter01 <= 1.0)) {
      throw new IllegalArgumentException("jitter01 must lie in [0, 1]");
    }
    if (failedAttempts > DELAYS.size()) {
      return Optional.empty();
    }
    long base = DELAYS.get(failedAttempts - 1).toMillis();
    double factor = 1.0 + (2.0 * jitter01 - 1.0) * JITTER_PERCENT / 100.0;
    return Optional.of(Duration.ofMillis(Math.round(base * factor)));
  }

  /**
   * Returns how many attempts a message gets in all, the first included.
   *
   * @return {@value #MAX_ATTEMPTS}
   */
  public int maxAttempts() {
    return MAX_ATTEMPTS;
  }
}
