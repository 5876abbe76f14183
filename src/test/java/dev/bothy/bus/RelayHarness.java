package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.adapters.nats.EventMessage;
import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.app.RelayRunner;
import dev.bothy.bus.app.RelayService;
import dev.bothy.bus.app.StreamClient;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.Event;
import dev.bothy.sync.ReadResult;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * A relay under test on the class's database and a real {@code nats-server}: the stream, relays
 * built from their parts, and the checks every relay test makes on what the stream holds.
 */
final class RelayHarness implements AutoCloseable {
  static final String STREAM = "EVENTS";
  static final UnaryOperator<String> SUBJECT = Streams::subjectOf;
  static final Duration POLL = Duration.ofMillis(100);
  static final Duration ACK_TIMEOUT = Duration.ofSeconds(2);
  static final Duration LEASE_TIMEOUT = Duration.ofSeconds(3);

  /** One message as the stream holds it. */
  record Stored(long streamSeq, long bothySeq, String id) {}

  final PgExtension pg;
  final NatsServer nats;
  final EventLogFixture log;
  final Connection connection;
  private final List<RelayRunner> runners = new CopyOnWriteArrayList<>();
  private final List<RelayService> services = new CopyOnWriteArrayList<>();
  final List<Throwable> fatal = new CopyOnWriteArrayList<>();

  RelayHarness(PgExtension pg, NatsServer nats) throws Exception {
    this.pg = pg;
    this.nats = nats;
    this.log = new EventLogFixture(pg.app());
    this.connection = connect();
  }

  Connection connect() throws IOException, InterruptedException {
    return Nats.connect(
        Options.builder()
            .server(nats.url())
            .maxReconnects(-1)
            .reconnectWait(Duration.ofMillis(100))
            .connectionTimeout(Duration.ofSeconds(5))
            .build());
  }

  /** Starts from an empty stream and no cursor row; the log keeps its events. */
  void freshStream(Duration duplicateWindow) throws Exception {
    JetStreamManagement jsm = connection.jetStreamManagement();
    if (jsm.getStreamNames().contains(STREAM)) {
      jsm.deleteStream(STREAM);
    }
    jsm.addStream(
        StreamConfiguration.builder()
            .name(STREAM)
            .subjects(Streams.EVENT_SUBJECTS)
            .storageType(StorageType.File)
            .duplicateWindow(duplicateWindow)
            .maxAge(Duration.ofDays(8))
            .build());
    PgExtension.rows(
        pg.superuser(),
        "WITH c AS (DELETE FROM bus_relay_cursors RETURNING 1) SELECT count(*)::text FROM c");
  }

  PoolSettings connection(String applicationName) {
    return new PoolSettings(
        pg.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), applicationName);
  }

  RelayService service(String name, StreamClient stream, RelayMetrics metrics) {
    RelayService service =
        new RelayService(
            new RelayService.Settings(STREAM, 256, 64, ACK_TIMEOUT),
            log.uow,
            new JooqRelayCursorRepository(),
            log.log,
            stream,
            new PgRelayLease(connection(name), LEASE_TIMEOUT),
            metrics,
            RelayTracer.NONE,
            Clock.system());
    services.add(service);
    return service;
  }

  JetStreamClient client(Connection c) throws IOException {
    return new JetStreamClient(c, STREAM, SUBJECT, ACK_TIMEOUT);
  }

  /** Starts a relay loop over a service, polling every {@link #POLL}. */
  RelayRunner run(RelayService service) {
    RelayRunner runner =
        new RelayRunner(
            service::round,
            new RelayRunner.Waker() {
              @Override
              public void start(Runnable onWake) {}

              @Override
              public void close() {}
            },
            POLL,
            Clock.system(),
            Pause.real(),
            service::stop,
            fatal::add);
    service.ensureCursor();
    runner.start();
    runners.add(runner);
    return runner;
  }

  RelayService startRelay(String name) throws IOException {
    return startRelay(name, client(connection));
  }

  /** Starts a relay that talks to the stream through the given client. */
  RelayService startRelay(String name, StreamClient stream) {
    RelayService service = service(name, stream, RelayMetrics.NONE);
    run(service);
    return service;
  }

  /**
   * A stream client that hands every call to another one; a test overrides {@link #publish} to
   * watch the relay's windows or to cut one.
   */
  static class Delegating implements StreamClient {
    final StreamClient real;

    Delegating(StreamClient real) {
      this.real = real;
    }

    @Override
    public StreamTail tail() {
      return real.tail();
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, long base, String idSuffix) {
      return real.publish(events, base, idSuffix);
    }

    @Override
    public OptionalLong bothySeqAt(long streamSeq) {
      return real.bothySeqAt(streamSeq);
    }

    @Override
    public boolean connected() {
      return real.connected();
    }
  }

  OptionalLong cursor() {
    return log.uow.run(() -> new JooqRelayCursorRepository().read(STREAM));
  }

  /** Waits until the cursor reaches the log's head. */
  void awaitCursorAtHead(Duration within) throws InterruptedException {
    long head = log.log.head();
    await(
        () -> cursor().orElse(-1) == head,
        within,
        () -> "cursor " + cursor() + " never reached the head " + head);
  }

  static void await(
      BooleanSupplier condition, Duration within, java.util.function.Supplier<String> what)
      throws InterruptedException {
    Instant end = Instant.now().plus(within);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("timed out: " + what.get());
      }
      Thread.sleep(20);
    }
  }

  /** Reads every message of the stream, in stream order. */
  List<Stored> streamMessages() throws IOException, JetStreamApiException {
    JetStreamManagement jsm = connection.jetStreamManagement();
    StreamState state = jsm.getStreamInfo(STREAM).getStreamState();
    List<Stored> all = new ArrayList<>();
    if (state.getMsgCount() == 0) {
      return all;
    }
    for (long seq = state.getFirstSequence(); seq <= state.getLastSequence(); seq++) {
      MessageInfo m = jsm.getMessage(STREAM, seq);
      all.add(
          new Stored(
              m.getSeq(),
              Long.parseLong(m.getHeaders().getFirst(EventMessage.BOTHY_SEQ)),
              // A republish's ids carry a suffix after the event id (RelayRepublish).
              m.getHeaders().getFirst("Nats-Msg-Id").split("\\.")[0]));
    }
    return all;
  }

  /** The retained events of the log after a number, in order. */
  List<Event> logAfter(long afterSeq) {
    List<Event> all = new ArrayList<>();
    long after = afterSeq;
    while (true) {
      ReadResult read = log.log.readAfter(after, 1000);
      List<Event> page = ((ReadResult.Page) read).events();
      if (page.isEmpty()) {
        return all;
      }
      all.addAll(page);
      after = page.get(page.size() - 1).seq();
    }
  }

  /**
   * Checks the stream against the log: each event after {@code afterSeq} exactly once, in log
   * order, with its id, and nothing else.
   */
  void assertStreamHoldsTheLogAfter(long afterSeq) throws Exception {
    List<Stored> stored = streamMessages();
    List<Event> events = logAfter(afterSeq);
    assertThat(stored.stream().map(Stored::bothySeq).toList())
        .as("Bothy-Seq in stream order")
        .isEqualTo(events.stream().map(Event::seq).toList());
    assertThat(stored.stream().map(Stored::id).toList())
        .isEqualTo(events.stream().map(e -> e.id().toString()).toList());
  }

  @Override
  public void close() {
    for (RelayRunner runner : runners) {
      runner.stop(Duration.ofSeconds(5));
    }
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    assertThat(fatal).as("no relay loop ended unexpectedly").isEmpty();
  }
}
