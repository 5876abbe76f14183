package dev.bothy.bus.app;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The store of {@code event_deliveries}, in the current unit of work. */
public interface DeliveryRepository {
  /**
   * Claims a delivery in one statement: inserts the delivery row of a handler and an event unless
   * it exists ({@code ON CONFLICT DO NOTHING}) or the pair has an open dead letter (one not
   * replayed since it died). A concurrent insert of the same pair waits for the other unit and then
   * reports the conflict. A false answer does not say which of the two held; a caller that must
   * know asks {@link DeadLetterRepository#openFor}, which costs a second statement only then.
   *
   * @param handler the handler's name
   * @param eventId the event's id
   * @param handledAt the delivery time
   * @return true when this call inserted the row, false when it existed or a dead letter is open
   */
  boolean claim(String handler, UUID eventId, Instant handledAt);

  /**
   * Tells whether a handler has handled an event.
   *
   * @param handler the handler's name
   * @param eventId the event's id
   * @return true when the row exists
   */
  boolean exists(String handler, UUID eventId);

  /**
   * Deletes up to {@code limit} rows handled before {@code before}.
   *
   * @param before the horizon
   * @param limit the most rows
   * @return the rows deleted
   */
  int deleteOlderThan(Instant before, int limit);

  /**
   * Deletes every delivery row of the given handlers: the replay of a projection, in the unit that
   * also empties its tables.
   *
   * @param handlers the handlers' names
   * @return the rows deleted
   */
  int deleteAllOf(List<String> handlers);
}
