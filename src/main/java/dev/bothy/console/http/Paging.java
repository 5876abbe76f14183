package dev.bothy.console.http;

import dev.bothy.kernel.Ids;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.UUID;

/**
 * The query parameters every console list shares: {@code limit}, and the keyset cursors that say
 * where the next page starts. A cursor of a list ordered by time and id is {@code <time>_<id>} (ISO
 * 8601, then the UUID), as the previous page's {@code next_before} gave it: clients pass it back
 * unchanged.
 */
final class Paging {
  private static final char SEPARATOR = '_';
  // Years 1 to 9999: inside PostgreSQL's timestamptz range, and inside any real row's time.
  private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

  private Paging() {}

  /**
   * A position in a list ordered by time and id.
   *
   * @param at the time of the last row of the previous page
   * @param id its id
   */
  record Key(Instant at, UUID id) {
    String encode() {
      return at.toString() + SEPARATOR + id;
    }
  }

  /**
   * Parses {@code limit}.
   *
   * @param text the parameter, or null
   * @param defaultSize {@code console.defaultPageSize}
   * @param maxSize {@code console.maxPageSize}
   * @return the page size
   * @throws ConsoleProblem {@code invalid_request} outside 1 to {@code maxSize}
   */
  static int limit(String text, int defaultSize, int maxSize) {
    if (text == null || text.isEmpty()) {
      return defaultSize;
    }
    int value;
    try {
      value = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw invalid(
          "limit must be a whole number from 1 to console.maxPageSize (" + maxSize + ").");
    }
    if (value < 1 || value > maxSize) {
      throw invalid("limit must lie in 1..console.maxPageSize (" + maxSize + "): " + value + ".");
    }
    return value;
  }

  /**
   * Parses a time-and-id cursor.
   *
   * @param name the parameter's name, for the error
   * @param text the parameter, or null or empty for the first page
   * @return the key, or empty
   * @throws ConsoleProblem {@code invalid_request} for anything but {@code <ISO 8601>_<UUID>}
   */
  static Optional<Key> key(String name, String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    int cut = text.lastIndexOf(SEPARATOR);
    try {
      if (cut < 1) {
        throw new IllegalArgumentException("no <time>_<id>");
      }
      Instant at = Instant.parse(text.substring(0, cut));
      // Every cursor this list hands out is a stored time; one past PostgreSQL's range would
      // fail in the database as a data error instead of as a bad cursor.
      if (at.isBefore(EARLIEST) || at.isAfter(LATEST)) {
        throw new IllegalArgumentException("a time no row has");
      }
      UUID id =
          Ids.parse(text.substring(cut + 1))
              .orElseThrow(() -> new IllegalArgumentException("no UUID after the time"));
      return Optional.of(new Key(at, id));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw invalid(
          name
              + " '"
              + ConsoleProblem.echo(text)
              + "' is not a cursor of this list: pass the next_before of the previous page.");
    }
  }

  /**
   * Parses an id.
   *
   * @param name the parameter's name, for the error
   * @param text the text
   * @param what what the id names, for the error
   * @return the id
   * @throws ConsoleProblem {@code invalid_request} for anything but a UUID
   */
  static UUID id(String name, String text, String what) {
    return Ids.parse(text)
        .orElseThrow(
            () ->
                invalid(
                    name + " '" + ConsoleProblem.echo(text) + "' is not " + what + " (a UUID)."));
  }

  static ConsoleProblem invalid(String detail) {
    return ConsoleProblem.of(ConsoleProblem.Type.INVALID_REQUEST, detail);
  }
}
