package dev.bothy.sync.app;

import dev.bothy.sync.ResourceRef;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * An event checked and encoded in the work phase, waiting for its number in the sync phase.
 *
 * @param id the event id
 * @param type the type name
 * @param occurredAt when the unit appended it
 * @param resource the resource
 * @param actorId the actor, when there is one
 * @param payloadJson the encoded payload
 * @param traceparent the W3C trace context of the span that appended it, when one was current
 */
public record PendingEvent(
    UUID id,
    String type,
    Instant occurredAt,
    ResourceRef resource,
    Optional<UUID> actorId,
    String payloadJson,
    Optional<String> traceparent) {}
