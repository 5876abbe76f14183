package dev.bothy.wire;

import dev.bothy.kernel.BothyException;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * Checks, before a role opens its database, that every connector's port can be taken: a taken port
 * would otherwise end the start only after the embedded PostgreSQL started and the assembly ran,
 * with Jetty's stack trace in the log. Jetty still binds for real later, so a port taken in between
 * fails as before ({@link CommandErrors}).
 */
final class ConnectorPorts {
  private ConnectorPorts() {}

  /**
   * Refuses the start when a connector's port is taken.
   *
   * @param server the server section, after the role dropped or bound its connectors
   * @throws BothyException {@code unavailable}, naming the connector's keys
   */
  static void checkFree(DefaultServerFactory server) {
    check(server.getApplicationConnectors(), "server.applicationConnectors");
    check(server.getAdminConnectors(), "server.adminConnectors");
  }

  private static void check(List<ConnectorFactory> connectors, String key) {
    for (int i = 0; i < connectors.size(); i++) {
      if (!(connectors.get(i) instanceof HttpConnectorFactory http) || http.getPort() == 0) {
        continue;
      }
      String host = http.getBindHost();
      InetSocketAddress address =
          host == null
              ? new InetSocketAddress(http.getPort())
              : new InetSocketAddress(host, http.getPort());
      try (ServerSocket probe = new ServerSocket()) {
        // As Jetty binds: a port in TIME_WAIT after a restart is free to take.
        probe.setReuseAddress(http.isReuseAddress());
        probe.bind(address);
      } catch (IOException e) {
        String where = (host == null ? "*" : host) + ":" + http.getPort();
        throw BothyException.unavailable(
            "cannot listen on "
                + where
                + " ("
                + e.getMessage()
                + "): change the port or bindHost of "
                + key
                + "["
                + i
                + "], or stop the process that holds the port",
            null);
      }
    }
  }
}
