package dev.bothy.system;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A ping of flow 00 as stored.
 *
 * @param id the ping's id, the resource id of its events
 * @param status pinged, then echoed
 * @param pingedAt when it was recorded
 * @param echoedAt when {@code system.echo} marked it, present exactly when echoed
 */
public record Ping(UUID id, PingStatus status, Instant pingedAt, Optional<Instant> echoedAt) {
  /** Checks that no component is null. */
  public Ping {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(pingedAt, "pingedAt");
    Objects.requireNonNull(echoedAt, "echoedAt");
  }
}
