package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.Relay;
import dev.bothy.bus.RelayTracer;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.EventMessage;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamState;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bus republish --from SEQ}: what it prints and when it fails (a failure is exit code 1 of
 * the jar, with one line on standard error), against the class's database and a real {@code
 * nats-server}. Each test starts with ten events in the log, no cursor row and an empty stream.
 */
class BusCommandTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  @RegisterExtension
  static final NatsServer LOCKED = NatsServer.jetStream().token("robin-knows-this-token");

  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);

  @TempDir Path dir;

  private EventLogFixture log;
  private Connection nats;
  private Path config;
  private long start;
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    log = new EventLogFixture(PG.app());
    nats = Nats.connect(Options.builder().server(NATS.url()).build());
    JetStreamManagement jsm = nats.jetStreamManagement();
    if (jsm.getStreamNames().contains(Streams.EVENTS)) {
      jsm.deleteStream(Streams.EVENTS);
    }
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects(Streams.EVENT_SUBJECTS)
            .storageType(StorageType.File)
            .duplicateWindow(Duration.ofMinutes(5))
            .maxAge(Duration.ofDays(30))
            .build());
    // The log of this test starts at its own first event, as if retention removed the others
    // (at least one, so the numbers before the first retained one are never empty).
    log.append(UUID.randomUUID(), 1);
    start = log.log.head();
    log.append(UUID.randomUUID(), 10);
    forgetUpTo(start);
    PgExtension.rows(
        PG.superuser(),
        "WITH c AS (DELETE FROM bus_relay_cursors RETURNING 1) SELECT count(*)::text FROM c");
    config = config("bus:\n  nats:\n    url: " + NATS.url() + "\n");
  }

  @AfterEach
  void tearDown() throws Exception {
    nats.close();
    assertThat(fatal).as("no relay loop ended unexpectedly").isEmpty();
  }

  private Path config(String bus) throws Exception {
    Path file = Files.createTempFile(dir, "config", ".yml");
    Files.writeString(
        file,
        "database:\n  url: "
            + PG.jdbcUrl()
            + "\n"
            + bus
            + (bus.isEmpty() ? "" : "  relay:\n    window: 4\n    pollInterval: 100ms\n"));
    return file;
  }

  private static void forgetUpTo(long seq) throws Exception {
    PgExtension.rows(
        PG.superuser(),
        "WITH d AS (DELETE FROM event_log WHERE seq <= "
            + seq
            + " RETURNING 1) SELECT count(*)::text FROM d");
  }

  private static CommandLine.Outcome republish(Path config, String... args) {
    List<String> all = new ArrayList<>(List.of("bus", "republish", config.toString()));
    all.addAll(List.of(args));
    return CommandLine.run(all.toArray(String[]::new));
  }

  private CommandLine.Outcome republishFrom(long from) {
    return republish(config, "--from", Long.toString(from));
  }

  /** The production relay on the class's database and the test's server. */
  private Relay relay() throws Exception {
    PoolSettings lease = connection(Relay.LEASE_APPLICATION_NAME);
    PoolSettings listen = connection(Relay.LISTEN_APPLICATION_NAME);
    Relay relay =
        new Relay(
            new Relay.Settings(
                Streams.EVENTS,
                Streams::subjectOf,
                100,
                4,
                POLL,
                ACK_TIMEOUT,
                Duration.ofSeconds(3),
                Duration.ofSeconds(1)),
            log.uow,
            log.log,
            nats,
            new Relay.Connections(lease, listen),
            RelayMetrics.NONE,
            RelayTracer.NONE,
            Clock.system(),
            fatal::add);
    relay.start();
    return relay;
  }

  private static PoolSettings connection(String applicationName) {
    return new PoolSettings(
        PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), applicationName);
  }

  /** Runs the relay until the cursor reaches the head, then stops it. */
  private void relayEverything() throws Exception {
    Relay relay = relay();
    try {
      awaitCursor(log.log.head());
    } finally {
      relay.stop(Duration.ofSeconds(5));
    }
  }

  private OptionalLong cursor() {
    return log.uow.run(() -> new JooqRelayCursorRepository().read(Streams.EVENTS));
  }

  private void awaitCursor(long seq) throws InterruptedException {
    Instant end = Instant.now().plus(WITHIN);
    while (cursor().orElse(-1) != seq) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("the cursor " + cursor() + " never reached " + seq);
      }
      Thread.sleep(20);
    }
  }

  /** The stream's messages as {@code Bothy-Seq} and {@code Nats-Msg-Id}, in stream order. */
  private List<String[]> stream() throws Exception {
    JetStreamManagement jsm = nats.jetStreamManagement();
    StreamState state = jsm.getStreamInfo(Streams.EVENTS).getStreamState();
    List<String[]> all = new ArrayList<>();
    for (long s = state.getFirstSequence();
        state.getMsgCount() > 0 && s <= state.getLastSequence();
        s++) {
      MessageInfo m = jsm.getMessage(Streams.EVENTS, s);
      all.add(
          new String[] {
            m.getHeaders().getFirst(EventMessage.BOTHY_SEQ), m.getHeaders().getFirst("Nats-Msg-Id")
          });
    }
    return all;
  }

  private List<Long> streamSeqs() throws Exception {
    return stream().stream().map(m -> Long.parseLong(m[0])).toList();
  }

  private static List<Long> range(long from, long to) {
    List<Long> all = new ArrayList<>();
    for (long s = from; s <= to; s++) {
      all.add(s);
    }
    return all;
  }

  @Test
  void a_purged_stream_gets_the_range_again_under_ids_of_their_own_and_the_output_names_it()
      throws Exception {
    relayEverything();
    nats.jetStreamManagement().purgeStream(Streams.EVENTS);

    CommandLine.Outcome outcome = republishFrom(start + 1);

    assertThat(outcome.succeeded()).as(outcome.err()).isTrue();
    assertThat(outcome.out().lines())
        .containsExactly(
            "stream last Bothy-Seq before: 0",
            // Not in the purged stream, and retention removed them from the log: not a choice.
            "NOT republished, removed from the log by retention: 1 to " + start,
            "republished: " + (start + 1) + " to " + (start + 10),
            "relay cursor: " + (start + 10));
    assertThat(streamSeqs()).isEqualTo(range(start + 1, start + 10));
    List<Logged> ids = eventIds();
    List<String[]> stored = stream();
    for (int i = 0; i < stored.size(); i++) {
      // The purged ids are still in the duplicate window: the copies carry a suffix.
      assertThat(stored.get(i)[1]).matches(ids.get(i).id() + "\\.r\\d+");
    }
    assertThat(cursor()).hasValue(start + 10);
  }

  private record Logged(long seq, UUID id) {}

  private List<Logged> eventIds() {
    return ((dev.bothy.sync.ReadResult.Page) log.log.readAfter(start, 100))
        .events().stream().map(e -> new Logged(e.seq(), e.id())).toList();
  }

  @Test
  void a_from_after_the_streams_last_event_names_the_range_it_leaves_out() throws Exception {
    relayEverything();
    nats.jetStreamManagement().purgeStream(Streams.EVENTS);

    CommandLine.Outcome outcome = republishFrom(start + 4);

    assertThat(outcome.succeeded()).as(outcome.err()).isTrue();
    assertThat(outcome.out().lines())
        .containsExactly(
            "stream last Bothy-Seq before: 0",
            "NOT republished, removed from the log by retention: 1 to " + start,
            "NOT republished, before --from and not in the stream: "
                + (start + 1)
                + " to "
                + (start + 3),
            "republished: " + (start + 4) + " to " + (start + 10),
            "relay cursor: " + (start + 10));
    assertThat(streamSeqs()).isEqualTo(range(start + 4, start + 10));
  }

  @Test
  void events_removed_by_retention_before_the_relay_reached_them_are_named_and_passed()
      throws Exception {
    relayEverything();
    // Five more events the relay never reached, and retention takes the first two of them.
    log.append(UUID.randomUUID(), 5);
    forgetUpTo(start + 12);

    CommandLine.Outcome outcome = republishFrom(start + 11);

    assertThat(outcome.succeeded()).as(outcome.err()).isTrue();
    assertThat(outcome.out().lines())
        .containsExactly(
            "stream last Bothy-Seq before: " + (start + 10),
            "NOT republished, removed from the log by retention: "
                + (start + 11)
                + " to "
                + (start + 12),
            "republished: none",
            "relay cursor: " + (start + 12));
    assertThat(cursor()).hasValue(start + 12);
    assertThat(streamSeqs()).isEqualTo(range(start + 1, start + 10));

    // The relay goes on after the loss with the events the log still holds.
    Relay relay = relay();
    try {
      awaitCursor(start + 15);
    } finally {
      relay.stop(Duration.ofSeconds(5));
    }
    List<Long> expected = new ArrayList<>(range(start + 1, start + 10));
    expected.addAll(range(start + 13, start + 15));
    assertThat(streamSeqs()).isEqualTo(expected);
  }

  @Test
  void a_seq_the_stream_holds_or_past_the_cursor_is_refused_and_nothing_is_published()
      throws Exception {
    relayEverything();

    CommandLine.Outcome held = republishFrom(start + 5);
    assertThat(held.succeeded()).isFalse();
    assertThat(held.err())
        .contains(
            "bus republish: the stream holds Bothy-Seq up to "
                + (start + 10)
                + " already: republish from "
                + (start + 11)
                + " or later");

    CommandLine.Outcome past = republishFrom(start + 12);
    assertThat(past.succeeded()).isFalse();
    assertThat(past.err())
        .contains(
            "bus republish: --from is past the relay's cursor "
                + (start + 10)
                + ": the relay publishes those itself");

    assertThat(streamSeqs()).isEqualTo(range(start + 1, start + 10));
    assertThat(cursor()).hasValue(start + 10);
    assertThat(held.err() + past.err()).doesNotContain("at dev.bothy");
  }

  @Test
  void a_running_relay_is_not_halted_so_the_command_refuses_and_changes_nothing() throws Exception {
    Relay relay = relay();
    try {
      awaitCursor(log.log.head());
      // The relay has had nothing to publish since the purge, so it has not looked at the stream
      // again: it holds the lease and is not halted.
      nats.jetStreamManagement().purgeStream(Streams.EVENTS);
      CommandLine.Outcome outcome = republishFrom(start + 1);

      assertThat(outcome.succeeded()).isFalse();
      assertThat(outcome.err())
          .contains(
              "bus republish: a running relay holds the lease, so it is not halted: nothing to"
                  + " republish");
    } finally {
      relay.stop(Duration.ofSeconds(5));
    }
    assertThat(streamSeqs()).isEmpty();
  }

  @Test
  void bad_arguments_a_missing_url_and_an_unreachable_or_refusing_server_get_one_clear_line()
      throws Exception {
    CommandLine.Outcome missing = republish(config);
    assertThat(missing.succeeded()).isFalse();
    assertThat(missing.err()).contains("argument --from is required");

    CommandLine.Outcome notANumber = republish(config, "--from", "robin");
    assertThat(notANumber.succeeded()).isFalse();
    assertThat(notANumber.err()).contains("--from").contains("robin");

    CommandLine.Outcome zero = republishFrom(0);
    assertThat(zero.succeeded()).isFalse();
    assertThat(zero.err()).contains("bus republish: --from must be an event number, 1 or more");

    CommandLine.Outcome noUrl = republish(config(""), "--from", "1");
    assertThat(noUrl.succeeded()).isFalse();
    assertThat(noUrl.err()).contains("bus republish: bus.nats.url is not set: there is no relay");

    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    String unreachableUrl = "nats://127.0.0.1:" + closed;
    CommandLine.Outcome unreachable =
        republish(
            config("bus:\n  nats:\n    url: " + unreachableUrl + "\n    connectionTimeout: 1s\n"),
            "--from",
            "1");
    assertThat(unreachable.succeeded()).isFalse();
    assertThat(unreachable.err())
        .contains("bus republish: cannot connect to NATS within bus.nats.connectionTimeout")
        .doesNotContain(unreachableUrl);

    CommandLine.Outcome refused =
        republish(
            config(
                "bus:\n  nats:\n    url: "
                    + LOCKED.url()
                    + "\n    token: alex-guessed-this-token\n"),
            "--from",
            "1");
    assertThat(refused.succeeded()).isFalse();
    assertThat(refused.err()).contains("bus.nats.token");
    assertThat(refused.out() + refused.err())
        .doesNotContain("alex-guessed-this-token")
        .doesNotContain("robin-knows-this-token")
        .doesNotContain("at dev.bothy");

    assertThat(streamSeqs()).isEmpty();
    assertThat(cursor()).isEmpty();
  }
}
