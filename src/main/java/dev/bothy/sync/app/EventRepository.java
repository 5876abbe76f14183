package dev.bothy.sync.app;

import dev.bothy.sync.Event;
import java.util.List;

/** The storage of the event log; called inside a unit of work only. */
public interface EventRepository {

  /**
   * Inserts numbered events and queues the {@code event_log} notification, which PostgreSQL
   * delivers only when the unit commits.
   *
   * @param firstSeq the number of the first event; the others follow without a gap
   * @param events the events, in number order
   */
  void insertAndNotify(long firstSeq, List<PendingEvent> events);

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
}
