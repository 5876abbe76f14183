package dev.bothy.system;

import java.util.Objects;
import java.util.UUID;

/**
 * The payload of {@code system.echoed}: the handler {@code system.echo} marked a ping echoed.
 *
 * @param pingId the ping's id, the same as the event's resource id
 * @param pingedEventId the id of the {@code system.pinged} event it answers
 */
public record Echoed(UUID pingId, UUID pingedEventId) {
  /** Checks the ids. */
  public Echoed {
    Objects.requireNonNull(pingId, "pingId");
    Objects.requireNonNull(pingedEventId, "pingedEventId");
  }
}
