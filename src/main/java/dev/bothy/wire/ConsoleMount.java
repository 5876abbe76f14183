package dev.bothy.wire;

import dev.bothy.console.ConsoleModule;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jersey.DropwizardResourceConfig;
import io.dropwizard.jersey.jackson.JacksonFeature;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * Mounts the operator console on the admin port: the page and its files under {@code /console}, its
 * JSON API as a Jersey application of its own under {@code /console/api/*} (the admin port has no
 * Jersey of its own, and the API's application lives on the application connectors, which the
 * {@code worker} role does not have), and the security-headers filter on every {@code /console}
 * path. The admin port binds loopback unless {@code server.adminConnectors} names an address
 * ({@link AdminPort}).
 */
final class ConsoleMount {
  private ConsoleMount() {}

  /**
   * Mounts the console.
   *
   * @param environment Dropwizard's environment
   * @param console the console module
   */
  static void mount(Environment environment, ConsoleModule console) {
    // Dropwizard's config binds each resource instance to its class: a plain ResourceConfig logs
    // a warning per resource instance at start (Jersey issue 3700), which the tour must not show.
    ResourceConfig api = new DropwizardResourceConfig();
    api.register(new JacksonFeature(environment.getObjectMapper()));
    api.property(ServerProperties.WADL_FEATURE_DISABLE, true);
    console.apiComponents().forEach(api::register);
    api.register(new UnreadBodyCloses());
    environment
        .admin()
        .addServlet("bothy-console-api", new ServletContainer(api))
        .addMapping(ConsoleModule.API_PATH + "/*");
    environment
        .admin()
        .addServlet("bothy-console-page", console.page())
        .addMapping(ConsoleModule.PATH + "/*");
    environment
        .admin()
        .addFilter("bothy-console-headers", console.securityHeaders())
        .addMappingForUrlPatterns(
            EnumSet.allOf(DispatcherType.class),
            false,
            ConsoleModule.PATH,
            ConsoleModule.PATH + "/*");
  }
}
