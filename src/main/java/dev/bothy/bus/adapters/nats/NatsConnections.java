package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.Credential;
import dev.bothy.bus.NatsSettings;
import dev.bothy.bus.domain.ReconnectBackoff;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Opens Bothy's NATS connection: reconnects forever ({@code maxReconnects(-1)}, jnats gives up
 * after 60 attempts by default) with the backoff of {@code bus.nats.reconnectWait} and {@code
 * bus.nats.reconnectBackoffCap}, named on the server, with the credential of {@code bus.nats.token}
 * or {@code bus.nats.credsFile}, logging through {@link ConnectionLog}.
 *
 * <p>The first connection is the start's: it is attempted once within {@code
 * bus.nats.connectionTimeout}, and a failure stops the start with a message naming the key to
 * check, never the URL's text or the credential.
 */
public final class NatsConnections {
  private NatsConnections() {}

  /**
   * Builds the client options.
   *
   * @param settings the connection settings
   * @return the options
   * @throws BothyException invalid, naming the key, when the URL or the credentials file is
   *     unusable
   */
  public static Options options(NatsSettings settings) {
    ConnectionLog log = new ConnectionLog(settings.connectionName());
    ReconnectBackoff backoff =
        new ReconnectBackoff(settings.reconnectWait(), settings.reconnectBackoffCap());
    Options.Builder builder = new Options.Builder();
    try {
      builder.servers(servers(settings.url()));
    } catch (IllegalArgumentException e) {
      throw BothyException.invalid(
          "bus.nats.url is not a NATS URL (nats://host:port, several separated by commas)");
    }
    builder
        .connectionName(settings.connectionName())
        .connectionTimeout(settings.connectionTimeout())
        .maxReconnects(-1)
        .reconnectWait(settings.reconnectWait())
        .reconnectDelayHandler(
            attempt -> backoff.delay(attempt, ThreadLocalRandom.current().nextDouble()))
        .connectionListener(log.listener())
        .errorListener(log);
    // Without a credential the client is anonymous: the server allows it or refuses it.
    if (settings.credential() instanceof Credential.Token token) {
      builder.token(token.value().toCharArray());
    } else if (settings.credential() instanceof Credential.CredsFile file) {
      if (!Files.isReadable(file.path())) {
        throw BothyException.invalid(
            "bus.nats.credsFile names a file that does not exist or cannot be read");
      }
      builder.authHandler(Nats.credentials(file.path().toString()));
    }
    return builder.build();
  }

  /**
   * Opens the connection, once, within {@code bus.nats.connectionTimeout}.
   *
   * @param settings the connection settings
   * @return the open connection; it reconnects by itself from then on
   * @throws BothyException unavailable when the server cannot be reached, refuses the credential or
   *     has no JetStream; invalid when the settings are unusable. The message names the key to
   *     check.
   * @throws InterruptedException when interrupted while connecting
   */
  public static Connection open(NatsSettings settings) throws InterruptedException {
    Options options = options(settings);
    Connection connection;
    try {
      connection = Nats.connect(options);
    } catch (IOException e) {
      if (refusedCredential(e)) {
        throw BothyException.unavailable(
            "the NATS server refused the credential of "
                + settings.credential().key()
                + " (check "
                + settings.credential().key()
                + ")",
            ErrorFields.redacted(e));
      }
      throw BothyException.unavailable(
          "cannot connect to NATS within bus.nats.connectionTimeout (check bus.nats.url and that"
              + " the server runs)",
          ErrorFields.redacted(e));
    }
    if (!connection.getServerInfo().isJetStreamAvailable()) {
      connection.close();
      throw BothyException.unavailable(
          "the NATS server of bus.nats.url has no JetStream (start nats-server with -js)", null);
    }
    return connection;
  }

  /** Splits {@code bus.nats.url} into its servers. */
  static String[] servers(String url) {
    String[] servers = url.split(",");
    for (int i = 0; i < servers.length; i++) {
      servers[i] = servers[i].trim();
      if (servers[i].isEmpty()) {
        throw new IllegalArgumentException("empty server");
      }
    }
    return servers;
  }

  private static boolean refusedCredential(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof AuthenticationException) {
        return true;
      }
      String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("authorization violation")
          || message.contains("authentication")
          || message.contains("user authentication expired")) {
        return true;
      }
    }
    return false;
  }
}
