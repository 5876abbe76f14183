package dev.bothy.bus.app;

import java.util.OptionalLong;

/**
 * The relay's cursor per stream: the last event number up to which the stream has acknowledged
 * every event in order. Every method runs in the calling thread's unit of work.
 */
public interface RelayCursorRepository {

  /**
   * Writes the stream's row when it has none: at the number just before the oldest event the log
   * still holds, so the relay carries every retained event. An empty log writes no row: the row
   * waits for the first event. Two processes starting together write one row.
   *
   * @param stream the stream's name
   */
  void ensureAtOldestRetained(String stream);

  /**
   * Reads the cursor.
   *
   * @param stream the stream's name
   * @return the last relayed number, or empty when the row is missing
   */
  OptionalLong read(String stream);

  /**
   * Moves the cursor from {@code expected} to {@code next}, only when it still holds {@code
   * expected}: a relay that lost its lease, or an operator's command, may have moved it since.
   *
   * @param stream the stream's name
   * @param expected the value the caller read
   * @param next the new value
   * @return true when the row moved
   */
  boolean compareAndSet(String stream, long expected, long next);
}
