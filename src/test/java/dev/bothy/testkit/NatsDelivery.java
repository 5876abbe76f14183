package dev.bothy.testkit;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusConsumerSettings;
import dev.bothy.bus.RelayState;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.JetStreamInbound;
import dev.bothy.bus.adapters.nats.NatsConsumerRunner;
import dev.bothy.bus.app.DispatchFaults;
import dev.bothy.bus.app.InboundMessage;
import dev.bothy.bus.app.KeepAlive;
import dev.bothy.bus.app.NatsDispatcher;
import dev.bothy.bus.app.Notices;
import dev.bothy.bus.app.RelayRunner;
import dev.bothy.bus.app.RelayService;
import dev.bothy.sync.Event;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * The NATS transport of a chaos run, on the test's real {@code nats-server}: the real relay ({@link
 * RelayService} and {@link RelayRunner}, with its lease) publishes the log to a fresh {@code
 * EVENTS}, each consumer's durable is declared by {@link NatsConsumerRunner#ensure}, and a pull
 * loop per durable hands every message to the real {@link NatsDispatcher}. The loop is the kit's
 * own (the production runner's fetch, without its gauges) so that it can make the transport's
 * faults: a duplicate is an ack turned into a plain {@code nak} (the server delivers again at
 * once), a reorder is a fetched window handled in a shuffled order, and a crash at a fault point
 * leaves the message unanswered until {@code ackWait} brings it back, as a dead process would.
 */
final class NatsDelivery {
  /**
   * The durable's settings: a short {@code ackWait} so a crashed delivery comes back within a
   * second; otherwise the defaults' shape.
   */
  static final BusConsumerSettings SETTINGS =
      new BusConsumerSettings(
          Duration.ofSeconds(1),
          Duration.ofMillis(500),
          1000,
          4,
          Duration.ofSeconds(1),
          Duration.ofSeconds(15));

  private static final Duration LOOP_PAUSE = Duration.ofMillis(50);

  /** The relay's cursor and the log's head, read with the owner role. */
  private static final String CURSOR_SQL =
      "SELECT (SELECT coalesce(max(last_seq), -1) FROM bus_relay_cursors)::text,"
          + " (SELECT coalesce(max(seq), 0) FROM event_log)::text";

  private final ChaosRig rig;
  private final Script script;
  private final Optional<Fault> fault;
  private final Random random;
  private final int window;
  private final PgExtension pg;
  private final NatsServer nats;
  private final Instant deadline;
  private final List<Thread> loops = new ArrayList<>();
  private final KitRelays relays;
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> deliveriesWanted = new ConcurrentHashMap<>();
  private volatile boolean stopping;
  private volatile boolean reordered;

  NatsDelivery(
      ChaosRig rig,
      Script script,
      Optional<Fault> fault,
      Random random,
      int window,
      PgExtension pg,
      NatsServer nats,
      Instant deadline) {
    this.rig = rig;
    this.script = script;
    this.fault = fault;
    this.random = random;
    this.window = window;
    this.pg = pg;
    this.nats = nats;
    this.deadline = deadline;
    this.relays = new KitRelays(rig, pg, fatal);
  }

  /** Runs the script and delivers until the stream and the durables are quiet; empty if settled. */
  Optional<String> drive() throws Exception {
    Connection connection = connect();
    try {
      freshStream(connection.jetStreamManagement());
      KitRelays.Relay first = relays.start(connection, "bothy-chaos-relay-a");
      Optional<String> active =
          await(
              () -> first.service().state().mode() == RelayState.Mode.ACTIVE,
              "the relay never took the lease");
      if (active.isPresent()) {
        return active;
      }
      if (is(Fault.RELAY_KILL)) {
        relays.start(connection, "bothy-chaos-relay-b");
      }
      String version = connection.getServerInfo().getVersion();
      for (BusConsumer consumer : rig.consumers) {
        NatsConsumerRunner.ensure(connection.jetStreamManagement(), consumer, version, SETTINGS);
        NatsDispatcher dispatcher =
            new NatsDispatcher(consumer, rig.handlers, rig.dispatch, KeepAlive.NONE, Notices.NONE);
        Thread loop =
            new Thread(() -> pull(connection, consumer, dispatcher), "chaos-" + consumer.durable());
        loop.setDaemon(true);
        loop.setUncaughtExceptionHandler((t, e) -> fatal.add(e));
        loops.add(loop);
        loop.start();
      }
      int half = script.steps() / 2;
      rig.runScript(script, 0, half);
      Optional<String> started =
          await(() -> rig.deliveries.get() > 0, "no delivery reached dispatch");
      if (started.isPresent()) {
        return started;
      }
      if (is(Fault.NATS_RESTART)) {
        nats.kill();
        nats.restart();
      }
      if (is(Fault.RELAY_KILL)) {
        relays.kill(first);
      }
      rig.runScript(script, half, script.steps());
      Optional<String> settled = settle(connection);
      if (settled.isEmpty() && is(Fault.REORDER) && !reordered) {
        return Optional.of(
            "REORDER changed the order of no fetched window: the fault never struck");
      }
      return settled;
    } finally {
      stopping = true;
      for (Thread loop : loops) {
        loop.join(Duration.ofSeconds(5).toMillis());
      }
      relays.stopAll();
      connection.close();
    }
  }

  private boolean is(Fault f) {
    return fault.orElse(null) == f;
  }

  private Connection connect() throws Exception {
    return Nats.connect(
        Options.builder()
            .server(nats.url())
            .maxReconnects(-1)
            .reconnectWait(Duration.ofMillis(100))
            .connectionTimeout(Duration.ofSeconds(5))
            .build());
  }

  private static void freshStream(JetStreamManagement jsm) throws Exception {
    if (jsm.getStreamNames().contains(Streams.EVENTS)) {
      jsm.deleteStream(Streams.EVENTS);
    }
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects(Streams.EVENT_SUBJECTS)
            .storageType(StorageType.File)
            .duplicateWindow(Duration.ofMinutes(2))
            .maxAge(Duration.ofDays(8))
            .build());
  }

  private void pull(Connection connection, BusConsumer consumer, NatsDispatcher dispatcher) {
    ConsumerContext context = null;
    boolean reorder = is(Fault.REORDER);
    while (!stopping) {
      try {
        if (context == null) {
          context = connection.getConsumerContext(Streams.EVENTS, consumer.durable());
        }
        FetchConsumer fetch =
            context.fetch(
                FetchConsumeOptions.builder()
                    .maxMessages(reorder ? window : SETTINGS.fetchBatch())
                    .expiresIn(SETTINGS.fetchWait().toMillis())
                    .build());
        try {
          List<Message> fetched = new ArrayList<>();
          Message message = fetch.nextMessage();
          while (message != null) {
            if (reorder) {
              fetched.add(message);
            } else {
              handle(dispatcher, message);
            }
            message = fetch.nextMessage();
          }
          List<Message> before = List.copyOf(fetched);
          Collections.shuffle(fetched, random);
          if (!before.equals(fetched)) {
            reordered = true;
          }
          for (Message m : fetched) {
            handle(dispatcher, m);
          }
        } finally {
          fetch.close();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) { // NOPMD: NATS away (a restart): pull again after a pause
        context = null;
        try {
          Thread.sleep(LOOP_PAUSE.toMillis());
        } catch (InterruptedException stop) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void handle(NatsDispatcher dispatcher, Message message) {
    try {
      dispatcher.handle(new Answer(message));
    } catch (Error e) {
      if (!DispatchFaults.isCrash(e)) {
        throw e;
      }
      // The process died at the fault point: the message stays unanswered until ackWait.
    }
  }

  /** The message as dispatch sees it; under {@link Fault#DUPLICATES} its first acks are naks. */
  private final class Answer implements InboundMessage {
    private final Message message;
    private final JetStreamInbound real;

    Answer(Message message) {
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
      if (is(Fault.DUPLICATES)) {
        String id = message.getHeaders().getFirst("Nats-Msg-Id");
        // Two or three deliveries in all; a plain nak brings the message back at once.
        int wanted = deliveriesWanted.computeIfAbsent(id, k -> 2 + random.nextInt(2));
        if (real.deliveredCount() < wanted) {
          message.nak();
          return;
        }
      }
      real.ack();
    }

    @Override
    public void nakWithDelay(Duration delay) {
      real.nakWithDelay(delay);
    }

    @Override
    public void term() {
      real.term();
    }

    @Override
    public void inProgress() {
      real.inProgress();
    }
  }

  private Optional<String> settle(Connection connection) throws InterruptedException {
    int quiet = 0;
    String last = "";
    while (Instant.now().isBefore(deadline)) {
      if (!fatal.isEmpty()) {
        return Optional.of("a loop of the run ended: " + fatal.get(0));
      }
      last = progress(connection);
      quiet = last.isEmpty() ? quiet + 1 : 0;
      // Quiet three times in a row: no follow-on event is on its way through the relay.
      if (quiet >= 3) {
        return Optional.empty();
      }
      Thread.sleep(100);
    }
    return Optional.of(
        "the NATS transport did not settle within " + ChaosSuite.RUN_LIMIT + ": " + last);
  }

  /** What is still moving; empty when the relay is at the head and every durable is answered. */
  private String progress(Connection connection) {
    try {
      String[] cursor = EndStates.rows(pg.owner(), CURSOR_SQL).get(0);
      if (!cursor[0].equals(cursor[1])) {
        return "relay cursor "
            + cursor[0]
            + " behind the log's head "
            + cursor[1]
            + ", relays "
            + relays.modes();
      }
      for (BusConsumer consumer : rig.consumers) {
        ConsumerInfo info =
            connection.jetStreamManagement().getConsumerInfo(Streams.EVENTS, consumer.durable());
        if (info.getNumPending() > 0 || info.getNumAckPending() > 0) {
          return "durable "
              + consumer.durable()
              + " has "
              + info.getNumPending()
              + " pending and "
              + info.getNumAckPending()
              + " unanswered messages";
        }
      }
      return "";
    } catch (Exception e) { // NOPMD: NATS or the database away for a moment: not settled yet
      return "not readable: " + e.getClass().getSimpleName();
    }
  }

  private Optional<String> await(BooleanSupplier condition, String failure)
      throws InterruptedException {
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        return Optional.of(failure + " within " + ChaosSuite.RUN_LIMIT);
      }
      Thread.sleep(20);
    }
    return Optional.empty();
  }
}
