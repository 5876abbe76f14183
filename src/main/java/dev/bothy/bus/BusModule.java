package dev.bothy.bus;

import dev.bothy.bus.adapters.nats.NatsConnections;
import dev.bothy.bus.adapters.nats.NatsStreams;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.StopPhase;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import java.io.IOException;
import java.util.Objects;

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
   * Builds the module; nothing connects before {@link #start(Lifecycle)}'s step runs.
   *
   * @param settings the module's settings
   */
  public BusModule(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Adds the start step {@code bus} (connect, check the payload limit, ensure the streams) and the
   * stop step that closes the connection within {@code bus.nats.connectionTimeout}.
   *
   * @param lifecycle the process lifecycle
   */
  public void start(Lifecycle lifecycle) {
    lifecycle.onStart("bus", this::connect);
    lifecycle.onStop(StopPhase.POOL, "bus", settings.nats().connectionTimeout(), this::close);
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
    Connection opened = NatsConnections.open(settings.nats());
    try {
      JetStreamManagement jsm = opened.jetStreamManagement();
      for (Streams.Declared declared : Streams.all(settings.stream())) {
        NatsStreams.checkFits(
            opened.getServerInfo(), declared, settings.stream().maxPayloadBytes());
      }
      for (Streams.Declared declared : Streams.all(settings.stream())) {
        NatsStreams.ensure(jsm, declared, settings.stream().manage());
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
