package dev.bothy.sync.app;

import dev.bothy.sync.Event;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The storage of the event log; called inside a unit of work only. */
public interface EventRepository {

  /**
   * Encodes events for storage without touching the database, so the appender can do it before it
   * takes the {@code event_seq} lock and hold the lock only for the insert itself.
   *
   * @param events the events, in the order they will be numbered
   * @return the insert, ready for its first number
   */
  PreparedInsert prepareInsert(List<PendingEvent> events);

  /** Events encoded by {@link #prepareInsert}, waiting for their numbers. */
  interface PreparedInsert {
    /**
     * Inserts the events numbered from {@code firstSeq} and queues the {@code event_log}
     * notification, which PostgreSQL delivers only when the unit commits.
     *
     * @param firstSeq the number of the first event; the others follow without a gap
     */
    void insertAndNotify(long firstSeq);
  }

  /**
   * Returns the highest number.
   *
   * @return the head, 0 when the log is empty
   */
  long head();

  /**
   * Returns the smallest number.
   *
   * @return the minimum, 0 when the log is empty
   */
  long minRetained();

  /**
   * Reads events after a number.
   *
   * @param afterSeq the number to read after
   * @param limit the most events
   * @return the events in number order
   */
  List<Event> readAfter(long afterSeq, int limit);

  /**
   * Reads the events with the given numbers, with one statement.
   *
   * @param seqs the numbers, each at least 1, no duplicates
   * @return the events found, in number order
   */
  List<Event> readNumbers(long[] seqs);

  /**
   * Reads the id and number of the first {@code limit} events after a number whose id is one of
   * {@code ids}, in order of number.
   *
   * @param ids the ids looked for
   * @param afterSeq the number to read after
   * @return id to number, for those found
   */
  Map<UUID, Long> numbersOf(List<UUID> ids, long afterSeq);
}
