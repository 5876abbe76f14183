package dev.bothy.bus;

import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.app.RelayRunner;
import dev.bothy.bus.app.RelayService;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.SyncModule;
import io.nats.client.Connection;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The relay from the event log to a JetStream stream, built from its parts: the cursor store, the
 * lease on a dedicated connection, the JetStream client, the round and its loop woken by the log's
 * notifications on a LISTEN connection of its own. Every role runs one when {@code bus.nats.url} is
 * set; one process per database relays at a time, the others stand by.
 */
public final class Relay {

  /**
   * What the relay reads from the configuration; each field names its key.
   *
   * @param stream the stream's name ({@code EVENTS})
   * @param subjectOf the subject of an event type ({@code Streams.subjectOf})
   * @param batchSize {@code bus.relay.batchSize}
   * @param window {@code bus.relay.window}
   * @param pollInterval {@code bus.relay.pollInterval}
   * @param publishAckTimeout {@code bus.relay.publishAckTimeout}
   * @param leaseTimeout {@code bus.relay.leaseTimeout}
   * @param listenReconnectBackoffCap {@code database.listenReconnectBackoffCap}
   */
  public record Settings(
      String stream,
      UnaryOperator<String> subjectOf,
      int batchSize,
      int window,
      Duration pollInterval,
      Duration publishAckTimeout,
      Duration leaseTimeout,
      Duration listenReconnectBackoffCap) {
    /** Checks that nothing is missing. */
    public Settings {
      Objects.requireNonNull(stream, "stream");
      Objects.requireNonNull(subjectOf, "subjectOf");
      Objects.requireNonNull(pollInterval, "pollInterval");
      Objects.requireNonNull(publishAckTimeout, "publishAckTimeout");
      Objects.requireNonNull(leaseTimeout, "leaseTimeout");
      Objects.requireNonNull(listenReconnectBackoffCap, "listenReconnectBackoffCap");
    }
  }

  /**
   * The dedicated connections of the relay.
   *
   * @param lease the lease's session, application name {@link PgRelayLease#APPLICATION_NAME}
   * @param listen the LISTEN connection, application name {@link #LISTEN_APPLICATION_NAME}
   */
  public record Connections(PoolSettings lease, PoolSettings listen) {}

  /** The application name of the relay's LISTEN connection. */
  public static final String LISTEN_APPLICATION_NAME = "bothy-bus-relay-wake";

  /** The application name of the relay's lease connection. */
  public static final String LEASE_APPLICATION_NAME = PgRelayLease.APPLICATION_NAME;

  private final RelayService service;
  private final RelayRunner runner;

  /**
   * Builds the relay; nothing runs until {@link #start()}.
   *
   * @param settings the settings
   * @param unitOfWork the unit of work
   * @param log the event log's reads
   * @param nats the process's NATS connection
   * @param connections the dedicated database connections
   * @param metrics the relay's counters
   * @param tracer the span of a publishing round
   * @param clock the process's clock
   * @param onFatal {@code Lifecycle::fail}
   * @throws IOException when the connection offers no JetStream
   */
  public Relay(
      Settings settings,
      UnitOfWork unitOfWork,
      EventLog log,
      Connection nats,
      Connections connections,
      RelayMetrics metrics,
      RelayTracer tracer,
      Clock clock,
      Consumer<Throwable> onFatal)
      throws IOException {
    service =
        new RelayService(
            new RelayService.Settings(
                settings.stream(),
                settings.batchSize(),
                settings.window(),
                settings.publishAckTimeout()),
            unitOfWork,
            new JooqRelayCursorRepository(),
            log,
            new JetStreamClient(
                nats, settings.stream(), settings.subjectOf(), settings.publishAckTimeout()),
            new PgRelayLease(connections.lease(), settings.leaseTimeout()),
            metrics,
            tracer,
            clock);
    RelayRunner.Waker waker =
        new RelayRunner.Waker() {
          private Listener listener;

          @Override
          public synchronized void start(Runnable onWake) {
            listener =
                new Listener(
                    connections.listen(),
                    SyncModule.LOG_CHANNEL,
                    settings.pollInterval(),
                    settings.listenReconnectBackoffCap(),
                    payload -> onWake.run(),
                    onWake,
                    onFatal);
            listener.start();
          }

          @Override
          public synchronized void close() {
            if (listener != null) {
              listener.close();
            }
          }
        };
    runner =
        new RelayRunner(
            service::round,
            waker,
            settings.pollInterval(),
            clock,
            Pause.real(),
            service::stop,
            onFatal);
  }

  /** Writes the cursor row when missing and starts the loop and its notifications. */
  public void start() {
    service.ensureCursor();
    runner.start();
  }

  /**
   * Stops the loop within the budget and gives up the lease.
   *
   * @param budget what remains of {@code shutdown.totalTimeout}
   */
  public void stop(Duration budget) {
    runner.stop(budget);
  }

  /**
   * Returns the relay's state and lag, for health checks and gauges.
   *
   * @return the view
   */
  public RelayView view() {
    return service;
  }
}
