package dev.bothy.wire;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import java.util.EnumSet;

/**
 * What keeps the admin port from being an open door: it has no authentication, so it listens on
 * loopback unless the operator names an address, and it offers no task that changes the process.
 *
 * <p>An admin connector without {@code bindHost} binds {@link #DEFAULT_BIND_HOST}, in the default
 * configuration and in a file that lists its own {@code server.adminConnectors} alike, so changing
 * only the port never opens it to the network. To let a Prometheus on another host scrape it, set
 * {@code bindHost} to the address of the interface it reaches (or {@code 0.0.0.0}) and restrict
 * that port with a firewall.
 *
 * <p>Dropwizard's tasks under {@code /tasks/*} answer 404: {@code log-level} could turn on DEBUG
 * for jOOQ or the driver (payloads and bind values into the log) or turn the log off, and {@code
 * gc} is a free full collection for anyone who reaches the port; an operator with the host has
 * {@code jcmd PID GC.run}.
 */
final class AdminPort {
  /** The address an admin connector without {@code bindHost} binds. */
  static final String DEFAULT_BIND_HOST = "127.0.0.1";

  /** Where Dropwizard's task servlet is mapped on the admin context. */
  static final String TASKS = "/tasks/*";

  private AdminPort() {}

  /**
   * Gives every HTTP admin connector without {@code bindHost} the loopback address; called by the
   * role commands before the server is built.
   *
   * @param server the server factory
   */
  static void bindLoopbackByDefault(DefaultServerFactory server) {
    for (ConnectorFactory connector : server.getAdminConnectors()) {
      if (connector instanceof HttpConnectorFactory http && http.getBindHost() == null) {
        http.setBindHost(DEFAULT_BIND_HOST);
      }
    }
  }

  /**
   * Makes every path under {@link #TASKS} answer 404 before Dropwizard's task servlet sees it.
   *
   * @param environment Dropwizard's environment
   */
  static void disableTasks(Environment environment) {
    Filter notFound =
        (request, response, chain) ->
            ((HttpServletResponse) response).sendError(HttpServletResponse.SC_NOT_FOUND);
    environment
        .admin()
        .addFilter("bothy-no-tasks", notFound)
        .addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, TASKS);
  }
}
