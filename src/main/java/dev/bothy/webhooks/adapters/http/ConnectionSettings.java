package dev.bothy.webhooks.adapters.http;

import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The connection pool and TLS of a {@link PinnedHttpTransport}.
 *
 * @param maxConnections the most open connections in all; deliveries beyond it wait for one
 * @param maxConnectionsPerTarget the most open connections to one target (scheme, host, port and
 *     checked address)
 * @param connectTimeout the longest wait for a TCP connection and TLS handshake; the wiring passes
 *     {@code webhooks.requestTimeout}, and the request's own timeout ends the attempt in any case
 * @param connectionWait the longest wait for a free connection of the pool when the target's (or
 *     the total) limit is reached, {@code webhooks.connectionWait}; past it the send throws {@link
 *     dev.bothy.webhooks.app.ReceiverBusy} without sending
 * @param tlsContext the TLS context whose trust store judges receivers' certificates; the JVM's
 *     default in production, a test's own trust in tests. The host name is always verified
 */
public record ConnectionSettings(
    int maxConnections,
    int maxConnectionsPerTarget,
    Duration connectTimeout,
    Duration connectionWait,
    SSLContext tlsContext) {

  /**
   * The default of {@link #maxConnections()}, {@code webhooks.maxConnections}: as many as the
   * default {@code webhooks} queue has workers (D-WF-13), so that deliveries to many receivers at
   * once never wait for the total; the pool closes an idle connection of another receiver to open
   * one, so kept-alive connections do not hold the total either.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 300;

  /**
   * The default of {@link #maxConnectionsPerTarget()}, {@code webhooks.maxConnectionsPerTarget}.
   */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_TARGET = 20;

  /**
   * The default of {@link #connectionWait()}, {@code webhooks.connectionWait}: long enough for a
   * receiver answering in tens of milliseconds to free a connection many times over, short enough
   * that a backlogged receiver does not hold the workers other receivers need, and below the
   * smallest {@code webhooks.requestTimeout} (1 s).
   */
  public static final Duration DEFAULT_CONNECTION_WAIT = Duration.ofMillis(500);

  /** Checks the values. */
  public ConnectionSettings {
    if (maxConnections < 1 || maxConnectionsPerTarget < 1) {
      throw new IllegalArgumentException("connection limits must be at least 1");
    }
    if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("the connect timeout must be positive");
    }
    if (connectionWait == null || connectionWait.isNegative() || connectionWait.isZero()) {
      throw new IllegalArgumentException("the connection wait must be positive");
    }
    Objects.requireNonNull(tlsContext, "tlsContext");
  }

  /**
   * Returns the defaults of {@code webhooks.maxConnections}, {@code
   * webhooks.maxConnectionsPerTarget} and {@code webhooks.connectionWait} with the JVM's default
   * TLS context.
   *
   * @param connectTimeout the connect timeout, {@code webhooks.requestTimeout}
   * @return the settings
   */
  public static ConnectionSettings defaults(Duration connectTimeout) {
    return limits(
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_CONNECTIONS_PER_TARGET,
        connectTimeout,
        DEFAULT_CONNECTION_WAIT);
  }

  /**
   * Returns the given limits with the JVM's default TLS context.
   *
   * @param maxConnections {@code webhooks.maxConnections}
   * @param maxConnectionsPerTarget {@code webhooks.maxConnectionsPerTarget}
   * @param connectTimeout the connect timeout, {@code webhooks.requestTimeout}
   * @param connectionWait the wait for a free connection, {@code webhooks.connectionWait}
   * @return the settings
   */
  public static ConnectionSettings limits(
      int maxConnections,
      int maxConnectionsPerTarget,
      Duration connectTimeout,
      Duration connectionWait) {
    try {
      return new ConnectionSettings(
          maxConnections,
          maxConnectionsPerTarget,
          connectTimeout,
          connectionWait,
          SSLContext.getDefault());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no default TLS context", e);
    }
  }
}
