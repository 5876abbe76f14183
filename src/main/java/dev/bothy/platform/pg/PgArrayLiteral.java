package dev.bothy.platform.pg;

import java.time.Instant;
import java.util.UUID;

/**
 * Builds the text form of a PostgreSQL array ({@code {a,"b c",NULL}}) for one bind value cast in
 * the statement ({@code ?::uuid[]}), so many rows travel as a few strings through {@code unnest}.
 *
 * <p>The point is where the work happens: a caller builds its literals before it takes a lock and
 * sends them after, so the lock is held only for the statement itself (the append path builds the
 * rows of a unit before it advances {@code event_seq}). Text elements are always quoted, with
 * {@code "} and {@code \} escaped, so no string can read as {@code NULL} or break the literal; a
 * Java {@code null} becomes {@code NULL}. Not thread-safe; one literal per array.
 *
 * <p>Example: {@code new PgArrayLiteral(2).add("a\"b").add((String) null).toString()} is {@code
 * {"a\"b",NULL}}, bound with {@code ?::text[]}.
 */
public final class PgArrayLiteral {
  /** A rough size of one element, so the usual literal needs no growing. */
  private static final int CHARS_PER_ELEMENT = 40;

  private final StringBuilder text;
  private boolean empty = true;

  /**
   * Starts an empty literal.
   *
   * @param expectedElements how many elements will follow, to size the buffer once
   */
  public PgArrayLiteral(int expectedElements) {
    text = new StringBuilder(2 + Math.max(0, expectedElements) * CHARS_PER_ELEMENT);
    text.append('{');
  }

  /**
   * Adds a text element, quoted and escaped.
   *
   * @param value the element; {@code null} for SQL {@code NULL}
   * @return this literal
   */
  public PgArrayLiteral add(String value) {
    separate();
    if (value == null) {
      text.append("NULL");
      return this;
    }
    text.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        text.append('\\');
      }
      text.append(c);
    }
    text.append('"');
    return this;
  }

  /**
   * Adds a {@code uuid} element.
   *
   * @param value the element; {@code null} for SQL {@code NULL}
   * @return this literal
   */
  public PgArrayLiteral add(UUID value) {
    separate();
    // The canonical form has only hex digits and hyphens: nothing to quote.
    text.append(value == null ? "NULL" : value.toString());
    return this;
  }

  /**
   * Adds a {@code timestamptz} element in ISO 8601 UTC; PostgreSQL rounds a finer fraction than
   * microseconds, as with any text input.
   *
   * @param value the element; {@code null} for SQL {@code NULL}
   * @return this literal
   */
  public PgArrayLiteral add(Instant value) {
    separate();
    // ISO_INSTANT has digits, '-', ':', '.', 'T' and 'Z' only: nothing to quote.
    text.append(value == null ? "NULL" : value.toString());
    return this;
  }

  private void separate() {
    if (!empty) {
      text.append(',');
    }
    empty = false;
  }

  /**
   * Returns the literal, to bind as a string.
   *
   * @return the array's text form, {@code {}} when nothing was added
   */
  @Override
  public String toString() {
    return text + "}";
  }
}
