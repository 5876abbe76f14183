package dev.bothy.wire;

import ch.qos.logback.classic.LoggerContext;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.slf4j.LoggerFactory;

/**
 * The commands {@code api}, {@code worker} and {@code all}: Dropwizard's server command with a
 * role. The role goes into the configuration (components ask it what to start) and into the logger
 * context ({@code bothy.role}, shown by the default log format); {@code worker} drops the
 * application connectors, so it opens the admin port only. Every role needs {@code server.type:
 * default} and binds an admin connector without {@code bindHost} to loopback ({@link AdminPort}).
 */
final class RoleCommand extends ServerCommand<BothyConfiguration> {
  private final Role role;

  RoleCommand(Application<BothyConfiguration> application, Role role, String description) {
    super(application, role.code(), description);
    this.role = role;
  }

  @Override
  protected void run(
      Bootstrap<BothyConfiguration> bootstrap, Namespace namespace, BothyConfiguration config)
      throws Exception {
    config.assignRole(role);
    // Logging is configured by now; a property survives until the next logging reset.
    ((LoggerContext) LoggerFactory.getILoggerFactory()).putProperty("bothy.role", role.code());
    // CrossKeyChecks refuses any other server.type, so check refuses it too.
    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    if (role.servesApi()) {
      // The API writes every error as application/problem+json through its own mapper;
      // Dropwizard's default mappers would compete with it for the same exception types.
      server.setRegisterDefaultExceptionMappers(false);
    } else {
      server.setApplicationConnectors(List.of());
    }
    AdminPort.bindLoopbackByDefault(server);
    // Before the database: a taken port ends the start in one line, nothing started (D-CK-19).
    ConnectorPorts.checkFree(server);
    super.run(bootstrap, namespace, config);
  }

  /** Adds the file argument, and the description to the list of {@code java -jar bothy.jar -h}. */
  @Override
  public void configure(Subparser subparser) {
    super.configure(subparser);
    subparser.help(getDescription());
  }

  /**
   * Prints a bad configuration or a refused start in one line, anything else with its stack trace.
   */
  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    CommandErrors.print(cli, role.code(), e);
  }
}
