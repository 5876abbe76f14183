package dev.bothy.wire;

import com.codahale.metrics.Gauge;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventLog;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;

/**
 * The {@code all} role inside a benchmark's JVM, for the mains of {@code dev.bothy.bench}: the
 * started application, its port, and the parts of its {@link Assembly} a benchmark drives next to
 * the HTTP API (the unit of work, the appender, the log). The HTTP API tests use {@code ApiApp}.
 */
public final class BenchApp implements AutoCloseable {
  private final DropwizardTestSupport<BothyConfiguration> support;
  private final Assembly assembly;

  private BenchApp(DropwizardTestSupport<BothyConfiguration> support, Assembly assembly) {
    this.support = support;
    this.assembly = assembly;
  }

  /**
   * Starts the {@code all} role and returns once Jetty and the process's lifecycle run.
   *
   * @param config the configuration file
   * @param databaseUrl the JDBC URL of a migrated database with its instance record, passed as
   *     {@code database.url}
   * @return the running application
   * @throws Exception when it does not start; nothing of it is left running then
   */
  public static BenchApp start(Path config, String databaseUrl) throws Exception {
    DropwizardTestSupport<BothyConfiguration> support =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            config.toString(),
            (String) null,
            application -> new RoleCommand(application, Role.ALL, "benchmark"),
            ConfigOverride.config("database.url", databaseUrl));
    support.before();
    try {
      BothyApplication application = support.getApplication();
      return new BenchApp(support, application.assembly());
    } catch (RuntimeException e) {
      support.after();
      throw e;
    }
  }

  /**
   * Returns the port of the application connector.
   *
   * @return the port
   */
  public int port() {
    return support.getLocalPort();
  }

  /**
   * Returns the port of the admin connector, where the console lives.
   *
   * @return the port
   */
  public int adminPort() {
    return support.getAdminPort();
  }

  /**
   * Returns the process's unit of work.
   *
   * @return the unit of work
   */
  public UnitOfWork unitOfWork() {
    return assembly.unitOfWork();
  }

  /**
   * Returns the process's appender, the one the HTTP API appends through.
   *
   * @return the appender
   */
  public Appender appender() {
    return assembly.appender();
  }

  /**
   * Returns the operator's verbs on webhook subscriptions, as the API's routes use them.
   *
   * @return the subscriptions' verbs
   */
  public dev.bothy.webhooks.WebhookSubscriptions webhooks() {
    return assembly.webhooks().subscriptions();
  }

  /**
   * Returns the process's event log.
   *
   * @return the log
   */
  public EventLog eventLog() {
    return assembly.eventLog();
  }

  /**
   * Returns how many event streams are open, from the gauge {@code bothy.api.streams_open}.
   *
   * @return the open streams
   */
  public int openStreams() {
    Gauge<?> open = support.getEnvironment().metrics().getGauges().get("bothy.api.streams_open");
    if (open == null) {
      throw new IllegalStateException("no gauge bothy.api.streams_open: the role serves no API");
    }
    return ((Number) open.getValue()).intValue();
  }

  /** Stops the application: its streams, Jetty, the lifecycle and the pool. */
  @Override
  public void close() {
    support.after();
  }
}
