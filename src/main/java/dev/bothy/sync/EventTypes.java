package dev.bothy.sync;

import dev.bothy.kernel.BothyException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The catalogue of event types. The assembly registers the types of every module at start, each
 * module's from its own registration file ({@link SyncEvents} for this one, listed in {@code
 * wire.EventRegistrations}); appending an unregistered type is refused. {@code
 * docs/reference/events.md} is generated from it with each type's bus handlers.
 */
public final class EventTypes {
  /** The built-in {@code settings.updated}: a user changed settings; resource {@code user}. */
  public static final EventType<SettingsUpdated> SETTINGS_UPDATED =
      new EventType<>(
          "settings.updated",
          1,
          SettingsUpdated.class,
          "user",
          "A user changed some of their settings.",
          EventType.Origin.API);

  private final Map<String, EventType<?>> types = new TreeMap<>();

  private EventTypes() {}

  /**
   * Returns a catalogue holding the built-in types, those of {@link SyncEvents#registrations()}.
   *
   * @return a new catalogue, open for more registrations
   */
  public static EventTypes withBuiltIns() {
    EventTypes catalogue = new EventTypes();
    SyncEvents.registrations().forEach(catalogue::register);
    return catalogue;
  }

  /**
   * Registers a type.
   *
   * @param type the type
   * @throws BothyException {@code internal} when the name is taken
   */
  public synchronized void register(EventType<?> type) {
    if (types.putIfAbsent(type.name(), type) != null) {
      throw BothyException.internal("event type " + type.name() + " is registered twice");
    }
  }

  /**
   * Finds a type by name.
   *
   * @param name the type name
   * @return the type, or empty when none has the name
   */
  public synchronized Optional<EventType<?>> find(String name) {
    return Optional.ofNullable(types.get(name));
  }

  /**
   * Returns every type, in name order.
   *
   * @return the types
   */
  public synchronized List<EventType<?>> all() {
    return List.copyOf(new ArrayList<>(types.values()));
  }
}
