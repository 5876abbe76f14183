package dev.bothy.bus;

import java.time.Duration;
import java.util.Objects;

/**
 * The stream settings that come from the configuration; each field names its key. {@link Streams}
 * turns them into the declared {@code EVENTS} stream.
 *
 * @param manage {@code bus.nats.manageStreams}: create or update the streams at start; when false,
 *     only verify them and fail the start on a difference
 * @param replicas {@code bus.nats.stream.replicas}: 1 on a single server, 3 in a cluster
 * @param maxAge {@code bus.nats.stream.maxAge}: at least {@code sync.eventRetention}
 * @param duplicateWindow {@code bus.nats.stream.duplicateWindow}: how long the server remembers a
 *     message id to drop a republished copy
 * @param maxPayloadBytes {@code sync.maxPayloadBytes}: the append limit every event payload keeps
 */
public record StreamSettings(
    boolean manage, int replicas, Duration maxAge, Duration duplicateWindow, int maxPayloadBytes) {
  /** Checks the bounds the server would refuse. */
  public StreamSettings {
    Objects.requireNonNull(maxAge, "maxAge");
    Objects.requireNonNull(duplicateWindow, "duplicateWindow");
    if (replicas < 1 || replicas > 5) {
      throw new IllegalArgumentException("bus.nats.stream.replicas must be between 1 and 5");
    }
    if (duplicateWindow.isNegative()
        || duplicateWindow.isZero()
        || duplicateWindow.compareTo(maxAge) > 0) {
      throw new IllegalArgumentException(
          "bus.nats.stream.duplicateWindow must be positive and not longer than"
              + " bus.nats.stream.maxAge");
    }
    if (maxPayloadBytes < 1) {
      throw new IllegalArgumentException("sync.maxPayloadBytes must be positive");
    }
  }
}
