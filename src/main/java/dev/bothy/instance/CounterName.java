package dev.bothy.instance;

import java.util.Objects;

/**
 * The name of a sequence counter. The set is closed: {@link #EVENT_SEQ}, {@link #AUDIT_SEQ} and
 * {@link #PERMISSION_VERSION}; {@link Counters} rejects any other name before it touches the
 * database, and the table's CHECK is the second line.
 *
 * @param value the name as stored in {@code sequence_counters.name}
 */
public record CounterName(String value) {
  /** The global event sequence, advanced by the sync phase hook. */
  public static final CounterName EVENT_SEQ = new CounterName("event_seq");

  /** The audit chain, advanced by the audit phase hook. */
  public static final CounterName AUDIT_SEQ = new CounterName("audit_seq");

  /** The permission version, advanced by the rights_begin phase hook. */
  public static final CounterName PERMISSION_VERSION = new CounterName("permission_version");

  /**
   * Creates a name; validity is checked where the name is used.
   *
   * @param value the name, not null
   */
  public CounterName {
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toString() {
    return value;
  }
}
