package dev.bothy.webhooks;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A position in a subscription's attempt log, which runs newest first by {@code (attempted_at,
 * id)}: the key of the last attempt of a page, from which the next page goes on.
 *
 * @param attemptedAt the attempt's {@link Attempt#attemptedAt()}
 * @param id its {@link Attempt#id()}, which breaks ties between equal times
 */
public record AttemptKey(Instant attemptedAt, UUID id) {
  // No stored attempt has a time outside the years 1 to 9999.
  private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

  /** Checks that no component is null. */
  public AttemptKey {
    Objects.requireNonNull(attemptedAt, "attemptedAt");
    Objects.requireNonNull(id, "id");
  }

  /**
   * Returns the key as a cursor for clients: {@code <ISO 8601 time>_<id>}, passed back unchanged.
   *
   * @return the cursor
   */
  public String encode() {
    return attemptedAt + "_" + id;
  }

  /**
   * Reads a cursor of {@link #encode()}.
   *
   * @param cursor the text a client passed back, not null
   * @return the key, empty when the text is not exactly what {@link #encode()} writes (another form
   *     of the same time included) or names a time outside the years 1 to 9999, which no stored
   *     attempt has
   */
  public static java.util.Optional<AttemptKey> parse(String cursor) {
    int cut = cursor.lastIndexOf('_');
    if (cut < 1) {
      return java.util.Optional.empty();
    }
    java.util.Optional<UUID> id = dev.bothy.kernel.Ids.parse(cursor.substring(cut + 1));
    if (id.isEmpty()) {
      return java.util.Optional.empty();
    }
    try {
      Instant at = Instant.parse(cursor.substring(0, cut));
      // Attempts are stored to the microsecond: a finer time is no attempt's.
      if (at.isBefore(EARLIEST) || at.isAfter(LATEST) || at.getNano() % 1000 != 0) {
        return java.util.Optional.empty();
      }
      AttemptKey key = new AttemptKey(at, id.get());
      // Only the form encode() writes: an offset, a lower-case z or nanoseconds would name a
      // time no attempt stores, or the same one in another spelling.
      return key.encode().equals(cursor) ? java.util.Optional.of(key) : java.util.Optional.empty();
    } catch (java.time.format.DateTimeParseException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * Returns the key of an attempt.
   *
   * @param attempt the attempt
   * @return its key
   */
  public static AttemptKey of(Attempt attempt) {
    return new AttemptKey(attempt.attemptedAt(), attempt.id());
  }
}
