package dev.bothy.bus;

import dev.bothy.sync.ResourceRef;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One event as a bus handler receives it: the stored event's envelope and its payload decoded
 * through the event catalogue into the type's payload record.
 *
 * @param id the event's id, the second half of the dedupe key {@code (handler, event_id)}
 * @param seq the event's number in the log
 * @param type the event type's name
 * @param occurredAt when the appending unit ran
 * @param resource the resource the event is about
 * @param actorId who caused it, when someone did
 * @param payload the decoded payload
 * @param <P> the payload record type of the event type
 */
public record BusEvent<P extends Record>(
    UUID id,
    long seq,
    String type,
    Instant occurredAt,
    ResourceRef resource,
    Optional<UUID> actorId,
    P payload) {
  /** Checks that no component is null. */
  public BusEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(occurredAt, "occurredAt");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(actorId, "actorId");
    Objects.requireNonNull(payload, "payload");
  }
}
