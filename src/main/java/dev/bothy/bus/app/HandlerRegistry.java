package dev.bothy.bus.app;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Every bus consumer of the process, as the modules declared them at assembly. Durable and handler
 * names are unique across all modules, and each module declares only consumers of its own name: a
 * breach fails the start with a message naming both declarations. Frozen at start, after which it
 * only answers.
 */
public final class HandlerRegistry {
  /**
   * One registered handler.
   *
   * @param consumer its consumer
   * @param handler the handler
   * @param id the stable id of its name, carried by {@code bus.dispatch} jobs (job args hold IDs
   *     only)
   */
  public record Registered(BusConsumer consumer, BusHandler<?> handler, UUID id) {}

  private final Map<String, BusConsumer> durables = new LinkedHashMap<>();
  private final Map<String, Registered> byName = new LinkedHashMap<>();
  private final Map<UUID, Registered> byId = new HashMap<>();
  private final Map<String, List<Registered>> byType = new HashMap<>();
  private boolean frozen;

  /** Creates an empty registry. */
  public HandlerRegistry() {}

  /**
   * The stable id of a handler name: a name-based UUID, the same in every process and release.
   *
   * @param handler the handler's name
   * @return its id
   */
  public static UUID idOf(String handler) {
    return UUID.nameUUIDFromBytes(
        ("bothy.bus.handler:" + handler).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Registers the consumers a module declares.
   *
   * @param module the declaring module, such as {@code system}
   * @param consumers its consumers
   * @throws IllegalArgumentException when a consumer is not of {@code module}, or a durable or
   *     handler name is taken
   * @throws IllegalStateException after {@link #freeze}
   */
  public synchronized void register(String module, List<BusConsumer> consumers) {
    Objects.requireNonNull(module, "module");
    if (frozen) {
      throw new IllegalStateException("bus consumers of " + module + " registered after the start");
    }
    for (BusConsumer c : consumers) {
      if (!c.module().equals(module)) {
        throw new IllegalArgumentException(
            "the module " + module + " declares the bus consumer " + c.durable() + " of another");
      }
      if (durables.containsKey(c.durable())) {
        throw new IllegalArgumentException(
            "the bus consumer " + c.durable() + " is declared twice");
      }
      for (BusHandler<?> h : c.handlers()) {
        Registered taken = byName.get(h.name());
        if (taken != null) {
          throw new IllegalArgumentException(
              "the bus handler "
                  + h.name()
                  + " of "
                  + c.durable()
                  + " is declared by "
                  + taken.consumer().durable()
                  + " already");
        }
      }
    }
    for (BusConsumer c : consumers) {
      durables.put(c.durable(), c);
      for (BusHandler<?> h : c.handlers()) {
        Registered r = new Registered(c, h, idOf(h.name()));
        byName.put(h.name(), r);
        byId.put(r.id(), r);
        byType.computeIfAbsent(h.eventType().name(), t -> new ArrayList<>()).add(r);
      }
    }
  }

  /**
   * Freezes the registry at start, after checking that every handler's event type is in the
   * catalogue with the same payload record.
   *
   * @param catalogue the event catalogue
   * @throws IllegalStateException naming the handler whose type the catalogue lacks or has with
   *     another payload
   */
  public synchronized void freeze(EventTypes catalogue) {
    for (Registered r : byName.values()) {
      EventType<?> declared = r.handler().eventType();
      Optional<EventType<?>> known = catalogue.find(declared.name());
      if (known.isEmpty() || !known.get().payloadType().equals(declared.payloadType())) {
        throw new IllegalStateException(
            "the bus handler "
                + r.handler().name()
                + " takes the event type "
                + declared.name()
                + ", which the event catalogue "
                + (known.isEmpty() ? "does not have" : "has with another payload record"));
      }
    }
    frozen = true;
  }

  /**
   * Returns the handlers that take an event type, in registration order.
   *
   * @param eventType the type's name
   * @return the handlers, possibly none
   */
  public synchronized List<Registered> interested(String eventType) {
    return List.copyOf(byType.getOrDefault(eventType, List.of()));
  }

  /**
   * Finds a handler by its id.
   *
   * @param id the id of {@link #idOf}
   * @return the handler, or empty when this process has none of that name
   */
  public synchronized Optional<Registered> byId(UUID id) {
    return Optional.ofNullable(byId.get(id));
  }

  /**
   * Finds a handler by name.
   *
   * @param name the handler's name
   * @return the handler, or empty
   */
  public synchronized Optional<Registered> byName(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * Returns every consumer, in registration order.
   *
   * @return the consumers
   */
  public synchronized List<BusConsumer> consumers() {
    return List.copyOf(durables.values());
  }

  /**
   * Tells whether no module declared a consumer.
   *
   * @return true when there is none
   */
  public synchronized boolean isEmpty() {
    return durables.isEmpty();
  }
}
