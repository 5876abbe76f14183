package dev.bothy.sync;

import java.util.List;

/** What {@link EventLog#readAfter(long, int)} found: a page, or the signal to resync. */
public sealed interface ReadResult {

  /**
   * Events after the asked number, in order.
   *
   * @param events the events, possibly none
   * @param nextAfter the number to ask after next time: the last event's, or the asked one
   */
  record Page(List<Event> events, long nextAfter) implements ReadResult {
    /** Copies the list. */
    public Page {
      events = List.copyOf(events);
    }
  }

  /**
   * The reader is below the retention window: the events right after its number are gone.
   *
   * @param minRetainedSeq the smallest number the log still holds
   */
  record ResyncRequired(long minRetainedSeq) implements ReadResult {}
}
