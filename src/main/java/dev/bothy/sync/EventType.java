package dev.bothy.sync;

import java.util.Objects;

/**
 * A registered event type: its name, version, payload record and aggregate.
 *
 * <p>The aggregate of an event is its resource (D-F0-1): the type declares the aggregate type
 * ({@code resourceType}); the aggregate id is the envelope's {@code resource_id}, which every draft
 * carries ({@link ResourceRef}) and the appender checks against this type. The version field is
 * {@code version}: it names the golden payload ({@code <name>.v<version>.json}) and a payload
 * change readers must know about is a new version. The payload JSON carries no version of its own:
 * payloads are public (the HTTP API, webhooks) and the envelope's type names it.
 *
 * @param name the type name, such as {@code settings.updated}
 * @param version the payload version; a change of the payload that readers must know about is a new
 *     version
 * @param payloadType the record every payload of this type is an instance of
 * @param resourceType the aggregate type: the resource type every event of this type is about, such
 *     as {@code user}
 * @param description one sentence for the event reference
 * @param origin who may append it: clients through the HTTP API, or only its own module
 * @param <P> the payload record type
 */
public record EventType<P extends Record>(
    String name,
    int version,
    Class<P> payloadType,
    String resourceType,
    String description,
    Origin origin) {

  /**
   * Who appends events of a type. A type that reports a module's own state change (a ping was
   * recorded) is appended by that module in the unit that makes the change; a client that could
   * append it too would report a change that never happened, and the module's handlers would act on
   * it.
   */
  public enum Origin {
    /** Clients append it with {@code POST /v1/events} (scope {@code events:append}). */
    API,
    /** Only the module that registers it appends it; {@code POST /v1/events} refuses it. */
    MODULE
  }

  /** Checks the components. */
  public EventType {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(payloadType, "payloadType");
    Objects.requireNonNull(resourceType, "resourceType");
    Objects.requireNonNull(description, "description");
    if (!name.matches("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+")) {
      throw new IllegalArgumentException("event type names are dotted lower case: " + name);
    }
    if (version < 1) {
      throw new IllegalArgumentException("event type versions start at 1: " + name);
    }
  }
}
