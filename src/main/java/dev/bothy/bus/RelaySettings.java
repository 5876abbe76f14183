package dev.bothy.bus;

import java.time.Duration;
import java.util.Objects;

/**
 * The relay's settings; each field names its key.
 *
 * @param batchSize {@code bus.relay.batchSize}: most events the relay reads from the log in one
 *     round
 * @param window {@code bus.relay.window}: most publishes in flight (sent, ack not yet received)
 * @param pollInterval {@code bus.relay.pollInterval}: how often the relay reads the log when no
 *     notification arrives
 * @param publishAckTimeout {@code bus.relay.publishAckTimeout}: the longest wait for one publish
 *     ack before the relay republishes the event with the same message id
 * @param leaseTimeout {@code bus.relay.leaseTimeout}: how long the lease outlives a silent holder
 */
public record RelaySettings(
    int batchSize,
    int window,
    Duration pollInterval,
    Duration publishAckTimeout,
    Duration leaseTimeout) {
  /** Checks that the sizes are positive and the durations present. */
  public RelaySettings {
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(publishAckTimeout, "publishAckTimeout");
    Objects.requireNonNull(leaseTimeout, "leaseTimeout");
    if (batchSize < 1 || window < 1) {
      throw new IllegalArgumentException(
          "bus.relay.batchSize and bus.relay.window must be positive");
    }
  }
}
