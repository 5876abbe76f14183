package dev.bothy.sync;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * An event to append: its type, resource, optional actor and payload record.
 *
 * <pre>{@code
 * appender.append(new EventDraft(
 *     "settings.updated", new ResourceRef("user", userId), Optional.of(userId),
 *     new SettingsUpdated(List.of("locale"))));
 * }</pre>
 *
 * @param type a registered event type
 * @param resource the resource, whose type must be the event type's resource type
 * @param actorId who causes it, when someone does
 * @param payload an instance of the event type's payload record
 */
public record EventDraft(
    String type, ResourceRef resource, Optional<UUID> actorId, Object payload) {

  /** Checks that no component is null. */
  public EventDraft {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(actorId, "actorId");
    Objects.requireNonNull(payload, "payload");
  }
}
