package dev.bothy.bus;

import java.time.Duration;
import java.util.Objects;

/**
 * How the bus connects to NATS; each field names its key.
 *
 * @param url {@code bus.nats.url}: one or more comma-separated {@code nats://} or {@code tls://}
 *     URLs, without credentials in them
 * @param credential {@code bus.nats.token} or {@code bus.nats.credsFile}, or none
 * @param connectionTimeout {@code bus.nats.connectionTimeout}: the longest wait for one connection
 *     attempt, and so for the start to fail on an unreachable server
 * @param reconnectWait {@code bus.nats.reconnectWait}: the first wait before a reconnection,
 *     doubled after each failed attempt
 * @param reconnectBackoffCap {@code bus.nats.reconnectBackoffCap}: the longest wait between two
 *     reconnection attempts
 * @param connectionName the connection's name on the server, such as {@code bothy-worker}
 */
public record NatsSettings(
    String url,
    Credential credential,
    Duration connectionTimeout,
    Duration reconnectWait,
    Duration reconnectBackoffCap,
    String connectionName) {
  /** Checks that every field is present and the waits are positive. */
  public NatsSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(credential, "credential");
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    Objects.requireNonNull(reconnectWait, "reconnectWait");
    Objects.requireNonNull(reconnectBackoffCap, "reconnectBackoffCap");
    Objects.requireNonNull(connectionName, "connectionName");
    if (connectionTimeout.isNegative()
        || connectionTimeout.isZero()
        || reconnectWait.isNegative()
        || reconnectWait.isZero()
        || reconnectBackoffCap.compareTo(reconnectWait) < 0) {
      throw new IllegalArgumentException(
          "bus.nats.connectionTimeout and bus.nats.reconnectWait must be positive and"
              + " bus.nats.reconnectBackoffCap at least bus.nats.reconnectWait");
    }
  }
}
