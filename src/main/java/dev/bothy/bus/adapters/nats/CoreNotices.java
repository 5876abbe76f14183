package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.app.Notices;
import io.nats.client.Connection;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Notices} as core NATS publishes on the process's connection: no stream stores them and
 * nobody acknowledges them. While the connection is away jnats buffers them; on a closed connection
 * they are dropped with a debug line, since the database holds what they announce.
 */
public final class CoreNotices implements Notices {
  private static final Logger LOG = LoggerFactory.getLogger(CoreNotices.class);

  private final Connection connection;

  /**
   * Creates the notices.
   *
   * @param connection the process's NATS connection
   */
  public CoreNotices(Connection connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
  }

  @Override
  public void publish(String subject, byte[] body) {
    try {
      connection.publish(subject, body);
    } catch (IllegalStateException e) {
      LOG.debug("bus notice dropped: error.type={}", e.getClass().getName());
    }
  }
}
