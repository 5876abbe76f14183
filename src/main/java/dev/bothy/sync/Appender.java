package dev.bothy.sync;

import java.util.List;
import java.util.UUID;

/**
 * Appends events to the log inside the caller's unit of work.
 *
 * <p>The events are checked and buffered at once; the {@code sync} phase of the unit numbers them
 * from the {@code event_seq} counter as the last step before commit and writes them. They become
 * visible with the commit, in commit order, and vanish with a rollback, leaving no gap. A unit that
 * appends nothing takes no counter lock.
 */
public interface Appender {

  /**
   * Checks and buffers events for the current unit.
   *
   * @param drafts the events, in the order they get their numbers
   * @return the new events' ids, in the same order
   * @throws dev.bothy.kernel.BothyException {@code invalid} for an unknown type, a payload that is
   *     not the type's payload record, a resource of the wrong type, or a payload over {@code
   *     sync.maxPayloadBytes} (then nothing of the unit is written once it rolls back); {@code
   *     internal} outside a unit of work or outside its {@code work} phase
   */
  List<UUID> append(EventDraft... drafts);

  /**
   * Checks and buffers events like {@link #append(EventDraft...)} and returns a receipt that also
   * tells their numbers once the unit's {@code sync} phase gave them: for callers that answer with
   * the numbers, such as the HTTP API.
   *
   * @param drafts the events, in the order they get their numbers
   * @return the receipt
   * @throws dev.bothy.kernel.BothyException as {@link #append(EventDraft...)}
   */
  AppendReceipt appendNumbered(EventDraft... drafts);
}
