package dev.bothy.system;

import java.util.Objects;
import java.util.UUID;

/**
 * The payload of {@code system.pinged}: a ping was recorded. The aggregate is the ping (resource
 * type {@code ping}, resource id the ping's id).
 *
 * @param pingId the ping's id, the same as the event's resource id
 */
public record Pinged(UUID pingId) {
  /** Checks the id. */
  public Pinged {
    Objects.requireNonNull(pingId, "pingId");
  }
}
