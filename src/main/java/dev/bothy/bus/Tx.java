package dev.bothy.bus;

import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import java.util.List;
import java.util.UUID;

/**
 * The transaction a bus handler runs in: the unit of work dispatch opened for one handler and one
 * event, which already holds the handler's row in {@code event_deliveries}.
 *
 * <p>Writes: the handler's own module stores join this transaction by themselves (they reach the
 * calling thread's unit, as every store does), so its writes and the delivery row commit together
 * or not at all. Follow-on events go through {@link #append}, in the same unit; side effects that
 * must wait for the commit (a live hint, a message to outside) go through {@link #afterCommit}.
 * Nothing else leaves the transaction: a slow outbound call never runs inside it.
 */
public interface Tx {
  /**
   * Appends follow-on events in this unit; they commit with the handler's writes.
   *
   * @param drafts the events
   * @return their ids, in order
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a draft the catalogue refuses
   */
  List<UUID> append(EventDraft... drafts);

  /**
   * Registers a side effect that runs once this unit committed, on the dispatching thread; never
   * after a rollback, and a retried unit forgets the callbacks of its failed attempt. A callback
   * that throws is logged and changes no verdict: the handler's work is committed.
   *
   * @param callback the side effect
   */
  void afterCommit(Runnable callback);

  /**
   * Sends a live hint about a resource once this unit committed, never after a rollback: with
   * {@code bus.nats.url} a core NATS message on {@code bothy.live.<handler>} (body {@code
   * {"handler":...,"resource_type":...,"resource_id":...}}, never the payload), which a UI or a
   * cache may listen to and which carries no guarantee; without NATS nothing, since the follow-on
   * events reach every {@code GET /v1/events/stream} reader right after the commit (D-F0-5,
   * D-NT-6).
   *
   * @param resource the resource that changed
   */
  void liveHint(ResourceRef resource);

  /**
   * Returns the handler's name, as stored in {@code event_deliveries.handler}.
   *
   * @return for example {@code system.echo}
   */
  String handler();
}
