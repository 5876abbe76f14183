package dev.bothy.sync;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A stored event: one row of {@code event_log}.
 *
 * @param seq the number in the global sequence, gapless and in commit order
 * @param id the event's UUIDv7, made by the application
 * @param type the registered event type, such as {@code settings.updated}
 * @param occurredAt when the appending unit ran
 * @param resource the resource the event is about
 * @param actorId who caused it, when someone did
 * @param payload the payload as JSON, as the type's payload record encodes it
 * @param traceparent the W3C trace context of the appending request, when there was one
 */
public record Event(
    long seq,
    UUID id,
    String type,
    Instant occurredAt,
    ResourceRef resource,
    Optional<UUID> actorId,
    String payload,
    Optional<String> traceparent) {

  /** Checks that no component is null. */
  public Event {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(occurredAt, "occurredAt");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(actorId, "actorId");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(traceparent, "traceparent");
  }
}
