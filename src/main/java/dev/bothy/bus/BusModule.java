package dev.bothy.bus;

import dev.bothy.bus.adapters.nats.NatsConnections;
import dev.bothy.bus.adapters.nats.NatsStreams;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.sync.EventLog;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The wiring entry of the bus: built only when {@code bus.nats.url} is set. Its start step {@code
 * bus} opens the NATS connection (failing the start within {@code bus.nats.connectionTimeout} on an
 * unreachable server or a refused credential), checks that the largest message fits the server's
 * {@code max_payload}, and creates, updates or verifies the streams of {@link Streams}. Its stop
 * step closes the connection in {@link StopPhase#POOL}, after the parts that use it stopped in the
 * earlier phases.
 *
 * <p>The open connection and its JetStream contexts are for the bus's own parts (the relay) and the
 * tests of {@code wire}; no other module uses the bus's NATS types.
 */
public final class BusModule {
  /**
   * Everything the module reads from the configuration.
   *
   * @param nats the connection, {@code bus.nats.*}
   * @param stream the streams, {@code bus.nats.manageStreams}, {@code bus.nats.stream.*} and {@code
   *     sync.maxPayloadBytes}
   * @param relay the relay, {@code bus.relay.*}
   */
  public record Settings(NatsSettings nats, StreamSettings stream, RelaySettings relay) {
    /** Checks that every part is present. */
    public Settings {
      Objects.requireNonNull(nats, "nats");
      Objects.requireNonNull(stream, "stream");
      Objects.requireNonNull(relay, "relay");
    }
  }

  private final Settings settings;
  private volatile Connection connection;
  private volatile JetStream jetStream;
  private volatile JetStreamManagement management;

  /**
   * Builds the module; nothing connects before {@link #start(Lifecycle, Supplier)}'s step runs.
   *
   * @param settings the module's settings
   */
  public BusModule(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Adds the start step {@code bus} (connect, check the payload limit, ensure the streams, check
   * they are this installation's) and the stop step that closes the connection within {@code
   * bus.nats.connectionTimeout}.
   *
   * @param lifecycle the process lifecycle
   * @param installation the instance record's id, asked in the start step (after the instance check
   *     loaded the record)
   */
  public void start(Lifecycle lifecycle, Supplier<UUID> installation) {
    lifecycle.onStart("bus", () -> connect(Optional.of(installation.get())));
    lifecycle.onStop(StopPhase.POOL, "bus", settings.nats().connectionTimeout(), this::close);
  }

  /**
   * Adds the relay of this process: its start step {@code bus_relay} (after {@code bus}) writes the
   * cursor row when missing and starts the relay's loop, which stands by until it holds the lease;
   * its stop step in {@link StopPhase#CONSUMERS} gets what remains of {@code shutdown.totalTimeout}
   * for a running round, then gives the lease up. Every role runs one.
   *
   * @param lifecycle the process lifecycle
   * @param unitOfWork the unit of work
   * @param log the event log's reads
   * @param connections the relay's dedicated database connections
   * @param listenReconnectBackoffCap {@code database.listenReconnectBackoffCap}
   * @param metrics the relay's counters
   * @param tracer the span of a publishing round
   * @param clock the process's clock
   * @return the relay's state and lag, off until the start step ran
   */
  public RelayView startRelay(
      Lifecycle lifecycle,
      UnitOfWork unitOfWork,
      EventLog log,
      Relay.Connections connections,
      Duration listenReconnectBackoffCap,
      RelayMetrics metrics,
      RelayTracer tracer,
      Clock clock) {
    RelaySettings relaySettings = settings.relay();
    AtomicReference<Relay> started = new AtomicReference<>();
    lifecycle.onStart(
        "bus_relay",
        () -> {
          Relay relay =
              new Relay(
                  new Relay.Settings(
                      Streams.EVENTS,
                      Streams::subjectOf,
                      relaySettings.batchSize(),
                      relaySettings.window(),
                      relaySettings.pollInterval(),
                      relaySettings.publishAckTimeout(),
                      relaySettings.leaseTimeout(),
                      listenReconnectBackoffCap),
                  unitOfWork,
                  log,
                  connection(),
                  connections,
                  metrics,
                  tracer,
                  clock,
                  lifecycle::fail);
          relay.start();
          started.set(relay);
        });
    lifecycle.onStopWithRest(
        StopPhase.CONSUMERS,
        "bus_relay",
        budget -> {
          Relay relay = started.get();
          if (relay != null) {
            relay.stop(budget);
          }
        });
    return new RelayView() {
      @Override
      public RelayState state() {
        Relay relay = started.get();
        return relay == null ? RelayView.OFF.state() : relay.view().state();
      }

      @Override
      public long lag() {
        Relay relay = started.get();
        return relay == null ? RelayView.OFF.lag() : relay.view().lag();
      }
    };
  }

  /**
   * Connects and ensures the streams; the start step of {@link #start(Lifecycle)}, public for the
   * tests that run it without a process.
   *
   * @throws dev.bothy.kernel.BothyException naming the key to check when the server cannot be
   *     reached, refuses the credential, cannot hold the largest message, or has a stream that
   *     differs while {@code bus.nats.manageStreams} is false
   * @throws InterruptedException when interrupted while connecting
   * @throws IOException when the JetStream contexts cannot be created
   */
  public void connect() throws InterruptedException, IOException {
    connect(Optional.empty());
  }

  /**
   * Connects, ensures the streams and, given the installation, checks that each stream is this
   * installation's ({@link NatsStreams#claim}): the start step of {@link #start}.
   *
   * @param installation the instance record's id; empty for the operator commands and tests that
   *     only read or write the stream of a known installation
   * @throws dev.bothy.kernel.BothyException as {@link #connect()}, and invalid when a stream is
   *     marked as another installation's
   * @throws InterruptedException when interrupted while connecting
   * @throws IOException when the JetStream contexts cannot be created
   */
  public void connect(Optional<UUID> installation) throws InterruptedException, IOException {
    Connection opened = NatsConnections.open(settings.nats());
    try {
      JetStreamManagement jsm = opened.jetStreamManagement();
      for (Streams.Declared declared : Streams.all(settings.stream())) {
        NatsStreams.checkFits(
            opened.getServerInfo(), declared, settings.stream().maxPayloadBytes());
      }
      for (Streams.Declared declared : Streams.all(settings.stream())) {
        NatsStreams.ensure(jsm, declared, settings.stream().manage());
        if (installation.isPresent()) {
          NatsStreams.claim(jsm, declared.name(), installation.get(), settings.stream().manage());
        }
      }
      management = jsm;
      jetStream = opened.jetStream();
      connection = opened;
    } catch (RuntimeException | IOException e) {
      opened.close();
      throw e;
    }
  }

  /**
   * Closes the connection, if open.
   *
   * @throws InterruptedException when interrupted while closing
   */
  public void close() throws InterruptedException {
    Connection open = connection;
    if (open != null) {
      connection = null;
      open.close();
    }
  }

  /**
   * Returns the module's settings.
   *
   * @return the settings
   */
  public Settings settings() {
    return settings;
  }

  /**
   * Returns the declared {@code EVENTS} stream.
   *
   * @return the declaration
   */
  public Streams.Declared events() {
    return Streams.events(settings.stream());
  }

  /**
   * Returns the open connection; it reconnects by itself.
   *
   * @return the connection
   * @throws IllegalStateException before the start step {@code bus} ran or after the stop
   */
  public Connection connection() {
    Connection open = connection;
    if (open == null) {
      throw new IllegalStateException("the bus is not connected (its start step has not run)");
    }
    return open;
  }

  /**
   * Returns the JetStream publishing context of the connection.
   *
   * @return the context
   * @throws IllegalStateException before the start step {@code bus} ran
   */
  public JetStream jetStream() {
    connection();
    return jetStream;
  }

  /**
   * Returns the JetStream management context of the connection (stream info, last message).
   *
   * @return the context
   * @throws IllegalStateException before the start step {@code bus} ran
   */
  public JetStreamManagement management() {
    connection();
    return management;
  }
}
