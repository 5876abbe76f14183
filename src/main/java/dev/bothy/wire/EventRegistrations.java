package dev.bothy.wire;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.system.SystemEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one list of every module's event registration file. A module that publishes events adds its
 * {@code <Module>Events.registrations()} (the {@code sync} module's is {@code SyncEvents}) here
 * with one line; nothing else registers a type, so the catalogue of a running process, the golden
 * payload test and {@code docs/reference/events.md} see the same types.
 */
public final class EventRegistrations {
  private EventRegistrations() {}

  /**
   * Returns the registration files of the modules other than {@code sync}, whose own types the
   * catalogue holds from its creation ({@link EventTypes#withBuiltIns()}).
   *
   * @return each module's types, one list per module
   */
  static List<List<EventType<?>>> modules() {
    return List.of(SystemEvents.registrations());
  }

  /**
   * Registers every module's types into the process's catalogue; every role, before the start.
   *
   * @param catalogue the catalogue of the {@code sync} module, holding its own types already
   * @throws dev.bothy.kernel.BothyException {@code internal} when two modules register one name
   */
  public static void registerInto(EventTypes catalogue) {
    for (List<EventType<?>> module : modules()) {
      module.forEach(catalogue::register);
    }
  }

  /**
   * Returns a new catalogue with every module's types, as a running process has them.
   *
   * @return the catalogue
   */
  public static EventTypes catalogue() {
    EventTypes catalogue = EventTypes.withBuiltIns();
    registerInto(catalogue);
    return catalogue;
  }

  /**
   * Groups the handlers of the registered bus consumers by the event type they take.
   *
   * @param consumers every module's bus consumers
   * @return handler names by type name, each list in name order
   */
  public static Map<String, List<String>> handlersByType(List<BusConsumer> consumers) {
    Map<String, List<String>> byType = new TreeMap<>();
    for (BusConsumer consumer : consumers) {
      for (BusHandler<?> handler : consumer.handlers()) {
        byType
            .computeIfAbsent(handler.eventType().name(), t -> new ArrayList<>())
            .add(handler.name());
      }
    }
    byType.replaceAll((type, names) -> names.stream().sorted().toList());
    return byType;
  }
}
