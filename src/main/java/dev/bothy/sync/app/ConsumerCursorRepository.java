package dev.bothy.sync.app;

import dev.bothy.sync.ConsumerName;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** The store of {@code event_consumer_cursors}; every method runs in the caller's unit of work. */
public interface ConsumerCursorRepository {
  /** A cursor row. */
  record Cursor(ConsumerName name, long lastSeq, Instant updatedAt) {}

  /**
   * Creates the row of a consumer at the head of the log unless it exists.
   *
   * @param name the consumer
   */
  void ensureAtHead(ConsumerName name);

  /**
   * Locks the row with {@code FOR UPDATE SKIP LOCKED}.
   *
   * @param name the consumer
   * @return its {@code last_seq}, or empty when another round holds the row (or it has none)
   */
  OptionalLong lock(ConsumerName name);

  /**
   * Whether the consumer has a row, locked or not: tells a held row from a missing one.
   *
   * @param name the consumer
   * @return true when the row exists
   */
  boolean exists(ConsumerName name);

  /**
   * Moves the cursor.
   *
   * @param name the consumer
   * @param lastSeq the new {@code last_seq}
   * @return the rows updated: 1
   */
  int advance(ConsumerName name, long lastSeq);

  /**
   * Reads every row.
   *
   * @return the rows, by name
   */
  List<Cursor> list();

  /**
   * When the oldest event after a number occurred.
   *
   * @param afterSeq the number
   * @return its {@code occurred_at}, or empty when no event follows
   */
  Optional<Instant> oldestAfter(long afterSeq);
}
