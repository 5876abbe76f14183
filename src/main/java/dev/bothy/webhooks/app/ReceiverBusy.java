package dev.bothy.webhooks.app;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by {@link WebhookTransport#send} when no connection to the target came free within {@code
 * webhooks.connectionWait}: every connection the receiver may have ({@code
 * webhooks.maxConnectionsPerTarget}, or {@code webhooks.maxConnections} in all) is busy with other
 * deliveries. Nothing was sent and no connection was tried, so it is not an attempt: the delivery
 * job snoozes for the wait and frees its worker for other receivers (D-WF-9).
 */
public final class ReceiverBusy extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** How long the send waited for a connection. */
  private final Duration waited;

  /**
   * Creates the signal.
   *
   * @param waited how long the send waited for a connection, {@code webhooks.connectionWait} or
   *     less; zero or more
   */
  public ReceiverBusy(Duration waited) {
    super("no connection to the receiver came free within " + waited, null, false, false);
    if (Objects.requireNonNull(waited, "waited").isNegative()) {
      throw new IllegalArgumentException("waited must not be negative: " + waited);
    }
    this.waited = waited;
  }

  /**
   * Returns how long the send waited for a connection.
   *
   * @return the wait, zero or more
   */
  public Duration waited() {
    return waited;
  }
}
