package dev.bothy.wire.config;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.bothy.platform.lifecycle.Role;
import io.dropwizard.core.Configuration;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration of a Bothy process: Dropwizard's {@code server}, {@code logging} and
 * {@code metrics} sections plus Bothy's own.
 *
 * <p>Every key is validated at load; a bad value stops the start with a message that names the key.
 * The checks that span keys are {@link CrossKeyChecks}. The role ({@code api}, {@code worker},
 * {@code all}) is not a key: the command sets it.
 */
@CrossKeyChecked
public class BothyConfiguration extends Configuration {
  /**
   * The console log format of the default configuration: Dropwizard's, with the role of the
   * process, which the role command puts into the logger context as {@code bothy.role}.
   */
  public static final String DEFAULT_LOG_FORMAT =
      "%-5p [%d{ISO8601,UTC}] [%property{bothy.role}] %c: %m%n%rEx";

  /**
   * The loggers the default configuration quiets, with their level: Liquibase, which logs a line
   * per step of a migration (Bothy logs one summary line), and Dropwizard's admin environment,
   * whose INFO line lists the tasks Bothy turns off, at WARN; Jetty's HTTP parser at ERROR, since
   * its WARN lines about a refused request quote the request's header values (the client gets a
   * problem document, the log needs nothing of it); the webhooks' HTTP client at INFO, since its
   * DEBUG lines quote every request line and header of a delivery (a target's query, the {@code
   * webhook-signature}).
   */
  public static final Map<String, String> QUIET_LOGGERS =
      Map.of(
          "io.dropwizard.core.setup.AdminEnvironment", "WARN",
          "liquibase", "WARN",
          "org.apache.hc.client5.http", "INFO",
          "org.eclipse.jetty.http.HttpParser", "ERROR");

  @Valid @NotNull @JsonProperty private DatabaseConfig database = new DatabaseConfig();

  @Valid @NotNull @JsonProperty private SyncConfig sync = new SyncConfig();

  /** The {@code jobs} section. */
  @Valid @NotNull @JsonProperty private JobsConfig jobs = new JobsConfig();

  /** The {@code consumer} section. */
  @Valid @NotNull @JsonProperty private ConsumerConfig consumer = new ConsumerConfig();

  @Valid @NotNull @JsonProperty private ShutdownConfig shutdown = new ShutdownConfig();

  /** The {@code api} section. */
  @Valid @NotNull @JsonProperty private ApiConfig api = new ApiConfig();

  /** The {@code bus} section. */
  @Valid @NotNull @JsonProperty private BusConfig bus = new BusConfig();

  /** The {@code webhooks} section. */
  @Valid @NotNull @JsonProperty private WebhooksConfig webhooks = new WebhooksConfig();

  /** The {@code console} section. */
  @Valid @NotNull @JsonProperty private ConsoleConfig console = new ConsoleConfig();

  @JsonIgnore private Role role = Role.ALL;

  /** Creates a configuration with every default. */
  public BothyConfiguration() {
    if (getLoggingFactory() instanceof DefaultLoggingFactory logging) {
      ConsoleAppenderFactory<ILoggingEvent> console = new ConsoleAppenderFactory<>();
      console.setLogFormat(DEFAULT_LOG_FORMAT);
      logging.setAppenders(List.of(console));
      Map<String, JsonNode> quiet = new LinkedHashMap<>();
      new java.util.TreeMap<>(QUIET_LOGGERS)
          .forEach((name, level) -> quiet.put(name, TextNode.valueOf(level)));
      logging.setLoggers(quiet);
    }
  }

  /**
   * Returns the {@code api} section.
   *
   * @return the section
   */
  public ApiConfig api() {
    return api;
  }

  /**
   * Returns the {@code database} section.
   *
   * @return the section
   */
  public DatabaseConfig database() {
    return database;
  }

  /**
   * Returns the {@code console} section.
   *
   * @return the section
   */
  public ConsoleConfig console() {
    return console;
  }

  /**
   * Returns the {@code webhooks} section.
   *
   * @return the section
   */
  public WebhooksConfig webhooks() {
    return webhooks;
  }

  /**
   * Returns the {@code sync} section.
   *
   * @return the section
   */
  public SyncConfig sync() {
    return sync;
  }

  /**
   * Returns the {@code jobs} section.
   *
   * @return the section
   */
  public JobsConfig jobs() {
    return jobs;
  }

  /**
   * Returns the {@code consumer} section.
   *
   * @return the section
   */
  public ConsumerConfig consumer() {
    return consumer;
  }

  /**
   * Returns the {@code shutdown} section.
   *
   * @return the section
   */
  public ShutdownConfig shutdown() {
    return shutdown;
  }

  /**
   * Returns the {@code bus} section.
   *
   * @return the section
   */
  public BusConfig bus() {
    return bus;
  }

  /**
   * Returns the role the command chose.
   *
   * @return the role; {@link Role#ALL} until a role command assigns one
   */
  public Role role() {
    return role;
  }

  /**
   * Assigns the role; called by the role command before the application runs.
   *
   * @param role the role
   */
  public void assignRole(Role role) {
    this.role = role;
  }
}
