package dev.bothy.bus.adapters.nats;

import dev.bothy.kernel.ErrorFields;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines of a NATS connection: one line per state change (connected, disconnected,
 * reconnected, closed), and while the connection is down one warning for its failing attempts
 * rather than one per attempt. Before the first connection stood, a failure is one line that
 * promises no retry: {@link NatsConnections#open} does not retry it and the caller says what to
 * check. No line carries the URL, a credential or an exception's message; a server error is reduced
 * to its words.
 */
final class ConnectionLog implements ErrorListener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLog.class);
  private static final int MAX_REASON_LENGTH = 64;

  private final String name;
  // Set once a failure was logged while down; cleared by the next (re)connection.
  private final AtomicBoolean failureLogged = new AtomicBoolean();
  // Set by the first disconnection; jnats reports another one after every failed attempt.
  private final AtomicBoolean down = new AtomicBoolean();
  // Set by the first connection: until then nothing is lost and nothing is retried.
  private final AtomicBoolean connectedOnce = new AtomicBoolean();

  ConnectionLog(String name) {
    this.name = name;
  }

  /**
   * Returns the connection listener. A lambda: the interface's one abstract method is deprecated in
   * favour of a default one that adds details this log does not use.
   */
  ConnectionListener listener() {
    return this::onEvent;
  }

  private void onEvent(Connection connection, ConnectionListener.Events event) {
    switch (event) {
      case CONNECTED -> {
        connectedOnce.set(true);
        down.set(false);
        failureLogged.set(false);
        LOG.info(
            "nats connected: connection_name={} server_version={}",
            name,
            connection.getServerInfo().getVersion());
      }
      case RECONNECTED -> {
        down.set(false);
        failureLogged.set(false);
        LOG.info("nats reconnected: connection_name={}", name);
      }
      case DISCONNECTED -> {
        // jnats reports a failed first attempt as a disconnection too.
        if (connectedOnce.get() && down.compareAndSet(false, true)) {
          LOG.warn("nats disconnected, reconnecting until it answers: connection_name={}", name);
        }
      }
      case CLOSED -> LOG.info("nats connection closed: connection_name={}", name);
      case LAME_DUCK ->
          LOG.warn("nats server is shutting down (lame duck): connection_name={}", name);
      default -> {
        // Resubscriptions and discovered servers change nothing an operator acts on.
      }
    }
  }

  @Override
  public void errorOccurred(Connection connection, String error) {
    LOG.warn("nats server error: connection_name={} reason={}", name, reason(error));
  }

  @Override
  public void exceptionOccurred(Connection connection, Exception exception) {
    if (!failureLogged.compareAndSet(false, true)) {
      return;
    }
    if (connectedOnce.get()) {
      LOG.warn(
          "nats connection failing, retrying with backoff: connection_name={} error.type={}",
          name,
          ErrorFields.type(exception));
    } else {
      LOG.warn(
          "nats connection attempt failed: connection_name={} error.type={}",
          name,
          ErrorFields.type(exception));
    }
  }

  /** Reduces a server's error text to letters and spaces, short: it never carries a value. */
  static String reason(String error) {
    String words = error == null ? "" : error.replaceAll("[^A-Za-z ]", "").trim();
    return words.length() > MAX_REASON_LENGTH ? words.substring(0, MAX_REASON_LENGTH) : words;
  }
}
