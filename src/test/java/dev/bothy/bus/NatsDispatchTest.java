package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.adapters.nats.CoreNotices;
import dev.bothy.bus.adapters.nats.EventMessage;
import dev.bothy.bus.adapters.nats.JetStreamInbound;
import dev.bothy.bus.adapters.nats.NatsConsumerRunner;
import dev.bothy.bus.app.InboundMessage;
import dev.bothy.bus.app.KeepAlive;
import dev.bothy.bus.app.NatsDispatcher;
import dev.bothy.bus.app.Notices;
import dev.bothy.bus.domain.ConsumerFilters;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.BothyException;
import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import dev.bothy.system.SystemEvents;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatch contract on the NATS transport, against a real {@code nats-server} (Debian's 2.9.10
 * here) and the durable {@code probe_main} that {@link NatsConsumerRunner#ensure} declares.
 *
 * <p>The shared body drives deliveries one by one: a delivery is the server's real next delivery of
 * the event's message, whose delivery count the test checks against the contract's {@code n},
 * handed to {@link NatsDispatcher#handle} through a wrapper that records the verb the dispatcher
 * answers with. The wrapper then sends a plain {@code nak} instead, so the server delivers the same
 * message again at once and the body can go on without waiting out the schedule (1 s to 10 min).
 * The verbs themselves go to the server in this class's own tests, through the production loop
 * {@link NatsConsumerRunner}: an ack, a real {@code nakWithDelay}, a term with its notice on {@code
 * bothy.dead.<durable>}, the types a 2.9 durable delivers and no handler takes, {@code MaxDeliver}
 * on the durable, {@code KeepAlive} and two dispatchers sharing one durable.
 */
class NatsDispatchTest extends DispatchContract {
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(30);
  static final BusConsumerSettings SETTINGS =
      new BusConsumerSettings(
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          1000,
          4,
          Duration.ofSeconds(1),
          Duration.ofSeconds(1));

  private Connection connection;
  private final List<Connection> extra = new ArrayList<>();
  private final List<NatsConsumerRunner> runners = new ArrayList<>();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final List<KeepAlive> keepAlives = new ArrayList<>();

  @BeforeEach
  void freshStream() throws Exception {
    connection = connect();
    JetStreamManagement jsm = connection.jetStreamManagement();
    if (jsm.getStreamNames().contains(Streams.EVENTS)) {
      jsm.deleteStream(Streams.EVENTS);
    }
    addEventsStream(jsm);
  }

  /** The stream as the relay declares it, for the tests that delete it or lose it. */
  private static void addEventsStream(JetStreamManagement jsm) throws Exception {
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects(Streams.EVENT_SUBJECTS)
            .storageType(StorageType.File)
            .build());
  }

  @AfterEach
  void close() throws Exception {
    NatsConsumerRunner.stopAll(runners, Duration.ofSeconds(5));
    for (KeepAlive k : keepAlives) {
      k.stop(Duration.ofSeconds(1));
    }
    for (Connection c : extra) {
      c.close();
    }
    connection.close();
    assertThat(fatal).as("no consumer loop ended unexpectedly").isEmpty();
  }

  private static Connection connect() throws Exception {
    return Nats.connect(
        Options.builder()
            .server(NATS.url())
            .maxReconnects(-1)
            .connectionTimeout(Duration.ofSeconds(5))
            .build());
  }

  private String serverVersion() {
    return connection.getServerInfo().getVersion();
  }

  /** A dispatcher's answer, recorded; the message itself gets a plain nak (see the class doc). */
  private static final class Recorded implements InboundMessage {
    private final JetStreamInbound real;
    private final Message message;
    String verb;
    Duration delay;

    Recorded(Message message) {
      this.message = message;
      this.real = new JetStreamInbound(message);
    }

    @Override
    public Optional<Event> event() {
      return real.event();
    }

    @Override
    public int deliveredCount() {
      return real.deliveredCount();
    }

    @Override
    public void ack() {
      verb = "ack";
    }

    @Override
    public void nakWithDelay(Duration d) {
      verb = "nak";
      delay = d;
    }

    @Override
    public void term() {
      verb = "term";
    }

    @Override
    public void inProgress() {
      real.inProgress();
    }
  }

  private final Map<Integer, Duration> nakDelays = new ConcurrentHashMap<>();

  @Override
  Transport transport(DispatchParts parts) {
    BusConsumer consumer = parts.handlers.consumers().get(0);
    try {
      NatsConsumerRunner.ensure(
          connection.jetStreamManagement(), consumer, serverVersion(), SETTINGS);
      ConsumerContext context = connection.getConsumerContext(Streams.EVENTS, consumer.durable());
      NatsDispatcher dispatcher =
          new NatsDispatcher(consumer, parts.handlers, parts.dispatch, KeepAlive.NONE, notices());
      Set<UUID> published = new HashSet<>();
      return new Transport() {
        @Override
        public Verdict deliver(Event event, int n) {
          try {
            if (published.add(event.id())) {
              publish(event);
            }
            Message message = context.next(Duration.ofSeconds(10));
            assertThat(message).as("delivery " + n).isNotNull();
            assertThat(message.metaData().deliveredCount()).isEqualTo(n);
            Recorded recorded = new Recorded(message);
            Verdict verdict = dispatcher.handle(recorded);
            assertThat(recorded.verb).isEqualTo(verdict.code());
            if (recorded.delay != null) {
              nakDelays.put(n, recorded.delay);
            }
            message.nak();
            return verdict;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }

        @Override
        public Duration redeliveryDelay(int n) {
          return NatsDispatcher.redeliveryDelay(n);
        }

        @Override
        public Verdict replay(UUID deadLetterId) {
          // The replay is the same on both transports: a bus.dispatch job in the replay's unit.
          DeadLetter letter = parts.deadLetters.replay(deadLetterId);
          List<LogDispatchTest.QueuedJob> jobs = LogDispatchTest.jobsOf(letter.eventId());
          return LogDispatchTest.attempt(parts, jobs.get(jobs.size() - 1), 1);
        }
      };
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private final List<String> noticed = new CopyOnWriteArrayList<>();

  private Notices notices() {
    CoreNotices core = new CoreNotices(connection);
    return (subject, body) -> {
      noticed.add(subject + " " + new String(body, StandardCharsets.UTF_8));
      core.publish(subject, body);
    };
  }

  private void publish(Event event) throws Exception {
    connection
        .jetStream()
        .publish(
            NatsMessage.builder()
                .subject(Streams.subjectOf(event.type()))
                .headers(EventMessage.headers(event))
                .data(EventMessage.body(event))
                .build());
  }

  private NatsConsumerRunner run(BusConsumerSettings settings, KeepAlive keepAlive, Connection c)
      throws Exception {
    BusConsumer consumer = parts.handlers.consumers().get(0);
    NatsConsumerRunner.ensure(c.jetStreamManagement(), consumer, serverVersion(), settings);
    NatsConsumerRunner runner =
        new NatsConsumerRunner(
            c,
            consumer,
            new NatsDispatcher(consumer, parts.handlers, parts.dispatch, keepAlive, notices()),
            settings,
            dev.bothy.kernel.Clock.system(),
            fatal::add);
    runner.start();
    runners.add(runner);
    return runner;
  }

  private ConsumerInfo info() throws Exception {
    return connection.jetStreamManagement().getConsumerInfo(Streams.EVENTS, "probe_main");
  }

  private static void await(BooleanSupplier condition, Supplier<String> what)
      throws InterruptedException {
    Instant end = Instant.now().plus(WITHIN);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("timed out: " + what.get());
      }
      Thread.sleep(20);
    }
  }

  private static long count(String sqlCount, long fallback) {
    try {
      return DispatchContract.count(sqlCount);
    } catch (SQLException e) {
      return fallback;
    }
  }

  @Test
  void the_contract_s_naks_ask_for_the_schedule_s_delay_by_delivery_count() {
    start(handler("probe.flaky", always(unavailable())));
    Event e = parts.appendOne();

    for (int n = 1; n <= 9; n++) {
      assertThat(transport.deliver(e, n)).isEqualTo(Verdict.NAK);
    }

    assertThat(nakDelays)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                1, Duration.ofSeconds(1),
                2, Duration.ofSeconds(5),
                3, Duration.ofSeconds(30),
                4, Duration.ofMinutes(2),
                5, Duration.ofMinutes(10),
                6, Duration.ofMinutes(10),
                7, Duration.ofMinutes(10),
                8, Duration.ofMinutes(10),
                9, Duration.ofMinutes(10)));
  }

  @Test
  void the_durable_is_declared_with_explicit_acks_max_deliver_ack_wait_and_no_backoff()
      throws Exception {
    start(handler("probe.ok", never()));
    transport(parts);

    ConsumerConfiguration config = info().getConsumerConfiguration();
    assertThat(config.getDurable()).isEqualTo("probe_main");
    assertThat(config.getAckPolicy()).isEqualTo(AckPolicy.Explicit);
    assertThat(config.getMaxDeliver()).isEqualTo(VerdictRules.MAX_DELIVER);
    assertThat(config.getAckWait()).isEqualTo(SETTINGS.ackWait());
    assertThat(config.getMaxAckPending()).isEqualTo(SETTINGS.maxAckPending());
    assertThat(config.getBackoff()).isEmpty();
    ConsumerFilters expected =
        ConsumerFilters.of(
            serverVersion(),
            List.of("settings.updated"),
            Streams.EVENT_SUBJECTS,
            Streams::subjectOf);
    assertThat(config.getFilterSubjects()).isEqualTo(expected.subjects());
  }

  @Test
  void the_loop_acks_after_the_commit_naks_with_the_real_delay_and_terms_with_a_notice()
      throws Exception {
    List<Instant> flakyCalls = new CopyOnWriteArrayList<>();
    start(
        handler("probe.ok", call -> call == 2 ? BothyException.invalid("bad at last") : null),
        handler(
            "probe.flaky",
            call -> {
              flakyCalls.add(Instant.now());
              return call == 1 ? unavailable() : null;
            }));
    Event e = parts.appendOne();
    publish(e);
    run(SETTINGS, KeepAlive.NONE, connection);

    await(() -> calls("probe.flaky") == 2, () -> "the nak'd handler ran again");
    await(() -> safeAckPending() == 0, () -> "acked after the second delivery");

    assertThat(Duration.between(flakyCalls.get(0), flakyCalls.get(1)))
        .as("nakWithDelay of the first delivery: 1 s")
        .isGreaterThanOrEqualTo(Duration.ofMillis(900));
    assertThat(calls("probe.ok")).as("the ack'd handler's row held on redelivery").isEqualTo(1);
    assertThat(parts.counted).contains("probe.ok ack", "probe.ok duplicate", "probe.flaky ack");
    assertThat(count("SELECT count(*) FROM event_deliveries", -1)).isEqualTo(2);

    Subscription dead = connection.subscribe("bothy.dead.>");
    connection.flush(Duration.ofSeconds(5));
    Event bad = parts.appendOne();
    publish(bad);
    Message notice = dead.nextMessage(WITHIN);

    assertThat(notice).as("a notice on bothy.dead.probe_main").isNotNull();
    assertThat(notice.getSubject()).isEqualTo("bothy.dead.probe_main");
    assertThat(new String(notice.getData(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"durable\":\"probe_main\",\"event_id\":\""
                + bad.id()
                + "\",\"event_seq\":"
                + bad.seq()
                + ",\"event_type\":\"settings.updated\",\"handlers\":[\"probe.ok\"],"
                + "\"deliveries\":1}");
    await(() -> safeAckPending() == 0, () -> "the term answered the message");
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM bus_dead_letters"))
        .containsExactly("probe.ok");
    assertThat(info().getRedelivered()).isZero();
  }

  @Test
  void a_one_type_consumer_s_durable_gets_only_its_type_from_the_server_on_every_version()
      throws Exception {
    start(handler("probe.ok", never()));
    transport(parts);
    assertThat(info().getConsumerConfiguration().getFilterSubjects())
        .containsExactly("bothy.events.settings.updated");
    ConsumerInfo info = drainOtherTypeThenHandled();
    assertThat(info.getDelivered().getConsumerSequence())
        .as("the server skipped the other type: one delivery")
        .isEqualTo(1);
    assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(2);
    assertThat(parts.counted).containsExactly("probe.ok ack");
  }

  @Test
  void types_under_a_2_9_durable_s_wildcard_that_no_handler_takes_are_acked_by_dispatch()
      throws Exception {
    List<String> echoed = new CopyOnWriteArrayList<>();
    start(
        handler("probe.ok", never()),
        BusHandler.of("probe.echoed", SystemEvents.ECHOED, (tx, e, at) -> echoed.add("ran")));
    transport(parts);
    boolean several = ConsumerFilters.atLeast(serverVersion(), 2, 10);
    ConsumerConfiguration config = info().getConsumerConfiguration();
    if (several) {
      assertThat(config.getFilterSubjects())
          .containsExactly("bothy.events.settings.updated", "bothy.events.system.echoed");
    } else {
      assertThat(config.getFilterSubject()).isEqualTo("bothy.events.>");
    }
    ConsumerInfo info = drainOtherTypeThenHandled();
    assertThat(info.getDelivered().getConsumerSequence())
        .as(several ? "the server skipped the other type" : "the other type was delivered")
        .isEqualTo(several ? 1 : 2);
    assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(2);
    assertThat(parts.counted).containsExactly("probe.ok ack");
    assertThat(echoed).isEmpty();
    assertThat(count("SELECT count(*) FROM event_deliveries", -1)).isEqualTo(1);
  }

  @Test
  void a_durable_of_the_common_subject_is_narrowed_to_its_type_at_the_next_start()
      throws Exception {
    start(handler("probe.ok", never()));
    JetStreamManagement jsm = connection.jetStreamManagement();
    // What a 2.9 server got from every earlier version: the stream's common subject.
    jsm.addOrUpdateConsumer(
        Streams.EVENTS,
        ConsumerConfiguration.builder()
            .durable("probe_main")
            .ackPolicy(AckPolicy.Explicit)
            .filterSubject(Streams.EVENT_SUBJECTS)
            .build());

    NatsConsumerRunner.ensure(jsm, parts.handlers.consumers().get(0), serverVersion(), SETTINGS);

    assertThat(info().getConsumerConfiguration().getFilterSubjects())
        .containsExactly("bothy.events.settings.updated");
  }

  /**
   * Publishes a {@code system.pinged} no test handler takes, then a handled event, runs the loop
   * until both are answered and nothing is pending, and returns the durable's state.
   */
  private ConsumerInfo drainOtherTypeThenHandled() throws Exception {
    publish(otherType("system.pinged"));
    publish(parts.appendOne());
    run(SETTINGS, KeepAlive.NONE, connection);
    await(() -> calls("probe.ok") == 1, () -> "the handled type ran");
    await(() -> safeAckPending() == 0, () -> "every delivered message answered");
    ConsumerInfo info = info();
    assertThat(info.getNumPending()).isZero();
    return info;
  }

  private Event otherType(String type) {
    return new Event(
        parts.appendOne().seq() + 1000,
        UUID.randomUUID(),
        type,
        Instant.now(),
        new ResourceRef("ping", UUID.randomUUID()),
        Optional.empty(),
        "{\"pingId\":\"" + UUID.randomUUID() + "\"}",
        Optional.empty());
  }

  /**
   * The case is a 40 s handler with a 30 s {@code ackWait} and a keep-alive every 10 s.
   * What decides it is the order of the three: the handler outlasts {@code ackWait}, and a
   * keep-alive comes before {@code ackWait} runs out. Scaled to 4 s, 3 s and 1 s the order is the
   * same, so the server would redeliver during the handler without the keep-alive (the control) and
   * does not with it.
   */
  @Test
  void keep_alive_keeps_a_handler_longer_than_the_ack_wait_from_redelivery() throws Exception {
    BusConsumerSettings scaled =
        new BusConsumerSettings(
            Duration.ofSeconds(3),
            Duration.ofSeconds(1),
            1000,
            1,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1));
    start(
        handler(
            "probe.slow",
            call -> {
              try {
                Thread.sleep(4000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            }));
    KeepAlive keepAlive = KeepAlive.start(scaled.keepAliveInterval(), fatal::add);
    keepAlives.add(keepAlive);
    Event kept = parts.appendOne();
    Connection second = connect();
    extra.add(second);
    run(scaled, keepAlive, connection);
    run(scaled, keepAlive, second);
    publish(kept);

    await(() -> parts.counted.contains("probe.slow ack"), () -> "the slow handler finished");
    await(() -> safeAckPending() == 0, () -> "acked");
    Thread.sleep(scaled.ackWait().plusSeconds(1).toMillis());
    assertThat(parts.counted)
        .as("no redelivery reached dispatch")
        .containsExactly("probe.slow ack");
    assertThat(info().getRedelivered()).isZero();
    assertThat(keepAlive.held()).as("nothing held outside dispatch").isZero();

    // The control: the same handler without the keep-alive is delivered again while it runs.
    NatsConsumerRunner.stopAll(runners, Duration.ofSeconds(10));
    runners.clear();
    parts.counted.clear();
    Event notKept = parts.appendOne();
    run(scaled, KeepAlive.NONE, connection);
    run(scaled, KeepAlive.NONE, second);
    publish(notKept);

    await(
        () -> parts.counted.contains("probe.slow duplicate"),
        () -> "the redelivery during the handler found the delivery row: " + parts.counted);
    assertThat(calls("probe.slow")).as("the delivery row held").isEqualTo(2);
  }

  @Test
  void two_dispatchers_on_one_durable_share_the_work_and_each_effect_happens_once()
      throws Exception {
    Set<Thread> workers = ConcurrentHashMap.newKeySet();
    Map<Thread, AtomicInteger> perWorker = new ConcurrentHashMap<>();
    start(
        handler(
            "probe.shared",
            call -> {
              perWorker
                  .computeIfAbsent(Thread.currentThread(), t -> new AtomicInteger())
                  .incrementAndGet();
              workers.add(Thread.currentThread());
              try {
                Thread.sleep(10);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            }));
    int events = 120;
    List<Event> appended = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      appended.add(parts.appendOne());
    }
    Connection second = connect();
    extra.add(second);
    run(SETTINGS, KeepAlive.NONE, connection);
    run(SETTINGS, KeepAlive.NONE, second);
    for (Event e : appended) {
      publish(e);
    }

    await(
        () -> count("SELECT count(*) FROM event_deliveries", -1) == events,
        () -> "every event handled");
    await(() -> safeAckPending() == 0, () -> "every message answered");

    assertThat(calls("probe.shared")).as("each effect once").isEqualTo(events);
    assertThat(count("SELECT count(DISTINCT event_id) FROM dispatch_probe", -1)).isEqualTo(events);
    assertThat(count("SELECT count(*) FROM dispatch_probe", -1)).isEqualTo(events);
    assertThat(workers).as("both dispatchers worked").hasSize(2);
    assertThat(perWorker.values()).allSatisfy(n -> assertThat(n.get()).isPositive());
    assertThat(count("SELECT count(*) FROM bus_dead_letters", -1)).isZero();
  }

  @Test
  void a_durable_deleted_while_its_runner_pulls_is_created_again_and_nothing_is_lost()
      throws Exception {
    start(handler("probe.ok", never()));
    Event first = parts.appendOne();
    publish(first);
    run(SETTINGS, KeepAlive.NONE, connection);
    await(() -> calls("probe.ok") == 1, () -> "the first event handled");
    await(() -> safeAckPending() == 0, () -> "the first event answered");

    // An operator or a tool deletes the durable; before, the loop failed every pull until a
    // restart, and later events waited unseen.
    try (dev.bothy.testing.CapturedLog log =
        dev.bothy.testing.CapturedLog.of(NatsConsumerRunner.class)) {
      connection.jetStreamManagement().deleteConsumer(Streams.EVENTS, "probe_main");
      Event second = parts.appendOne();
      publish(second);

      await(() -> calls("probe.ok") == 2, () -> "the event after the deletion handled");
      assertThat(log.events())
          .anySatisfy(
              e ->
                  assertThat(e.getFormattedMessage())
                      .isEqualTo(
                          "bus durable was missing, declared again: bothy.bus.durable=probe_main"
                              + " stream=EVENTS"));
    }
    await(() -> safeAckPending() == 0, () -> "every message of the new durable answered");
    assertThat(info().getConsumerConfiguration().getAckWait()).isEqualTo(SETTINGS.ackWait());
    assertThat(parts.counted)
        .as("the first event again, found in its row")
        .contains("probe.ok duplicate");
    assertThat(count("SELECT count(*) FROM event_deliveries", -1)).isEqualTo(2);
  }

  @Test
  void a_durable_whose_pulls_fail_shows_the_stretch_until_a_pull_succeeds() throws Exception {
    start(handler("probe.ok", never()));
    NatsConsumerRunner runner = run(SETTINGS, KeepAlive.NONE, connection);
    Event first = parts.appendOne();
    publish(first);
    await(() -> calls("probe.ok") == 1, () -> "the first event handled");
    assertThat(runner.pullFailure()).isEmpty();

    // The stream gone, as with a wiped store: every pull fails until it is back.
    connection.jetStreamManagement().deleteStream(Streams.EVENTS);
    await(() -> runner.pullFailure().isPresent(), () -> "the failing pulls shown");
    Instant since = runner.pullFailure().orElseThrow().since();
    // A few more retries, each bus.consumers.fetchWait (1 s here) apart: one stretch.
    Thread.sleep(2500);
    assertThat(runner.pullFailure())
        .hasValueSatisfying(
            f -> {
              assertThat(f.durable()).isEqualTo("probe_main");
              assertThat(f.since()).isEqualTo(since);
              assertThat(f.errorType()).startsWith("io.nats.client.");
            });

    addEventsStream(connection.jetStreamManagement());
    Event second = parts.appendOne();
    publish(second);
    await(() -> calls("probe.ok") == 2, () -> "handled again once the stream is back");
    // The pull that brought it ends after its fetch wait; then the stretch is over.
    await(() -> runner.pullFailure().isEmpty(), () -> "the stretch ended with a pull that worked");
  }

  @Test
  void a_server_back_without_its_store_shows_the_failing_pulls_until_the_stream_is_back()
      throws Exception {
    start(handler("probe.ok", never()));
    NatsConsumerRunner runner = run(SETTINGS, KeepAlive.NONE, connection);
    publish(parts.appendOne());
    await(() -> calls("probe.ok") == 1, () -> "the first event handled");

    // A machine lost the server's store: the server comes back empty on its port, and a pull of
    // the durable it no longer knows ends empty, without a status. Before, the loop went on
    // pulling nothing while the health check stayed green.
    NATS.kill();
    try (var files = java.nio.file.Files.walk(NATS.storeDirectory())) {
      files
          .sorted(java.util.Comparator.reverseOrder())
          .filter(f -> !f.equals(NATS.storeDirectory()))
          .forEach(f -> f.toFile().delete());
    }
    NATS.restart();
    await(() -> runner.pullFailure().isPresent(), () -> "the failing pulls shown");

    // The relay (or bus republish) brings the stream back; the durable is declared again.
    await(
        () -> {
          try {
            addEventsStream(connection.jetStreamManagement());
            return true;
          } catch (Exception reconnecting) {
            return false;
          }
        },
        () -> "the stream created again");
    publish(parts.appendOne());
    await(() -> calls("probe.ok") == 2, () -> "handled again once the stream is back");
    await(() -> runner.pullFailure().isEmpty(), () -> "the stretch ended with a pull that worked");
  }

  private long safeAckPending() {
    try {
      return info().getNumAckPending();
    } catch (Exception e) {
      return -1;
    }
  }
}
