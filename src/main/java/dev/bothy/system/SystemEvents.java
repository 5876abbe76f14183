package dev.bothy.system;

import dev.bothy.sync.EventType;
import java.util.List;

/**
 * The event types the {@code system} module publishes: its registration file, listed in {@code
 * wire.EventRegistrations}.
 */
public final class SystemEvents {
  /** The aggregate type of both events: a ping. */
  public static final String PING = "ping";

  /** {@code system.pinged}: {@code POST /v1/system/pings} recorded a ping. */
  public static final EventType<Pinged> PINGED =
      new EventType<>(
          "system.pinged",
          1,
          Pinged.class,
          PING,
          "A ping of flow 00 was recorded.",
          EventType.Origin.MODULE);

  /** {@code system.echoed}: the handler {@code system.echo} marked a ping echoed. */
  public static final EventType<Echoed> ECHOED =
      new EventType<>(
          "system.echoed",
          1,
          Echoed.class,
          PING,
          "The bus handler system.echo echoed a ping.",
          EventType.Origin.MODULE);

  private SystemEvents() {}

  /**
   * Returns the module's event types.
   *
   * @return {@code system.pinged} and {@code system.echoed}, version 1
   */
  public static List<EventType<?>> registrations() {
    return List.of(PINGED, ECHOED);
  }
}
