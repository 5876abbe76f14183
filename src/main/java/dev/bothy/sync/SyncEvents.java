package dev.bothy.sync;

import java.util.List;

/**
 * The event types the {@code sync} module publishes: its registration file. Each module that
 * publishes events has one such file ({@code <Module>Events.registrations()}), and {@code
 * wire.EventRegistrations} lists every module's file once; nothing else registers a type.
 */
public final class SyncEvents {
  private SyncEvents() {}

  /**
   * Returns the module's event types, each with its aggregate (the resource type) and version.
   *
   * @return {@code settings.updated} version 1
   */
  public static List<EventType<?>> registrations() {
    return List.of(EventTypes.SETTINGS_UPDATED);
  }
}
