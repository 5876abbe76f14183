package dev.bothy.webhooks.domain;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads an HTTP {@code Retry-After} header (RFC 9110 section 10.2.3): either a number of seconds or
 * an HTTP date. A date is taken relative to the caller's instant (from the kernel {@code Clock}); a
 * date in the past means "now". The wait is capped, so a receiver cannot park a delivery for a
 * year.
 */
public final class RetryAfter {
  private static final Pattern DELTA_SECONDS = Pattern.compile("[0-9]+");

  private RetryAfter() {}

  /**
   * Parses a header value.
   *
   * @param header the header's value; null or blank gives empty
   * @param now the instant a date is measured from
   * @param cap the longest wait to return; positive
   * @return the wait, at most {@code cap}; empty when the value is neither form
   * @throws IllegalArgumentException when the cap is not positive
   */
  public static Optional<Duration> parse(String header, Instant now, Duration cap) {
    Objects.requireNonNull(now, "now");
    if (cap == null || cap.isNegative() || cap.isZero()) {
      throw new IllegalArgumentException("the Retry-After cap must be positive");
    }
    if (header == null) {
      return Optional.empty();
    }
    String value = header.trim();
    if (DELTA_SECONDS.matcher(value).matches()) {
      long seconds;
      try {
        seconds = Long.parseLong(value);
      } catch (NumberFormatException tooLarge) {
        return Optional.of(cap);
      }
      return Optional.of(min(Duration.ofSeconds(seconds), cap));
    }
    try {
      Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return Optional.of(wait.isNegative() ? Duration.ZERO : min(wait, cap));
    } catch (DateTimeParseException notADate) {
      return Optional.empty();
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
