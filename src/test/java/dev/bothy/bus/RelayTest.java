package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.RelayState.Mode;
import dev.bothy.bus.RelayState.Reason;
import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.app.RelayRepublish;
import dev.bothy.bus.app.RelayService;
import dev.bothy.bus.app.StreamClient;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.sync.Event;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay against a real PostgreSQL and a real {@code nats-server}: order, nothing lost and
 * nothing doubled (by {@code Bothy-Seq}) across writers, a killed NATS server, a terminated lease
 * backend and two relays racing; reconciliation ahead and behind.
 */
class RelayTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(60);

  private RelayHarness harness;

  @BeforeEach
  void fresh() throws Exception {
    harness = new RelayHarness(PG, NATS);
    harness.freshStream(Duration.ofMinutes(2));
  }

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  private void appendUnits(int writers, int unitsEach, int eventsPerUnit) throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int w = 0; w < writers; w++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  for (int u = 0; u < unitsEach; u++) {
                    harness.log.append(UUID.randomUUID(), 1 + u % eventsPerUnit);
                  }
                } catch (RuntimeException e) {
                  failures.add(e);
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(WITHIN.toMillis());
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void every_event_of_many_units_and_writers_reaches_the_stream_once_in_log_order()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 1);
    RelayService relay = harness.startRelay("relay-order");

    appendUnits(4, 40, 5);

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(relay.state().mode()).isEqualTo(Mode.ACTIVE);
    assertThat(relay.lag()).isZero();
  }

  @Test
  void a_nats_server_killed_mid_window_with_half_of_it_stored_loses_and_doubles_nothing()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 1);
    AtomicBoolean armed = new AtomicBoolean();
    CountDownLatch killed = new CountDownLatch(1);
    List<Long> storedBeforeTheKill = new CopyOnWriteArrayList<>();
    StreamClient cutting =
        new RelayHarness.Delegating(harness.client(harness.connection)) {
          @Override
          public List<PublishOutcome> publish(List<Event> events, long base, String idSuffix) {
            if (events.size() < 2 || !armed.compareAndSet(true, false)) {
              return real.publish(events, base, idSuffix);
            }
            // The server stores the first half of the window and dies before it answers the rest:
            // the relay learns nothing of this window, as when the answers are lost with the
            // server.
            int half = events.size() / 2;
            List<PublishOutcome> first = real.publish(events.subList(0, half), base, idSuffix);
            for (int i = 0; i < half; i++) {
              if (first.get(i) instanceof PublishOutcome.Stored) {
                storedBeforeTheKill.add(events.get(i).seq());
              }
            }
            try {
              NATS.kill();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            killed.countDown();
            return events.stream()
                .<PublishOutcome>map(e -> new PublishOutcome.Failed(false))
                .toList();
          }
        };
    RelayService relay = harness.startRelay("relay-nats-kill", cutting);
    harness.awaitCursorAtHead(WITHIN);

    armed.set(true);
    appendUnits(2, 60, 25);
    assertThat(killed.await(WITHIN.toSeconds(), TimeUnit.SECONDS))
        .as("a window of more than one event was cut by the kill")
        .isTrue();
    assertThat(storedBeforeTheKill).as("the half the server stored before it died").isNotEmpty();
    assertThat(harness.cursor().orElseThrow())
        .as("the cursor stays before the cut window")
        .isLessThan(storedBeforeTheKill.get(0));
    RelayHarness.await(
        () -> !relay.state().natsConnected(), WITHIN, () -> "the relay saw NATS go away");
    appendUnits(1, 20, 10);
    NATS.restart();

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(relay.state().halt()).isEmpty();
  }

  @Test
  void a_terminated_lease_backend_hands_the_relay_over_and_nothing_is_lost_or_doubled()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 1);
    RelayService alex = harness.startRelay("relay-alex");
    RelayHarness.await(() -> alex.state().mode() == Mode.ACTIVE, WITHIN, () -> "alex active");
    RelayService sam = harness.startRelay("relay-sam");

    appendUnits(2, 30, 20);
    PgExtension.rows(
        PG.superuser(),
        "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity"
            + " WHERE application_name = 'relay-alex'");
    appendUnits(2, 30, 20);

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(List.of(alex.state().mode(), sam.state().mode()))
        .containsExactlyInAnyOrder(Mode.ACTIVE, Mode.STANDBY);
  }

  @Test
  void two_relays_racing_for_the_lease_never_publish_at_once() throws Exception {
    AtomicInteger publishing = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger windows = new AtomicInteger();
    harness.log.append(UUID.randomUUID(), 1);
    for (String name : List.of("relay-robin", "relay-sam-2", "relay-alex-2")) {
      StreamClient counted =
          new RelayHarness.Delegating(harness.client(harness.connection)) {
            @Override
            public List<PublishOutcome> publish(List<Event> events, long base, String suffix) {
              most.accumulateAndGet(publishing.incrementAndGet(), Math::max);
              try {
                windows.incrementAndGet();
                return real.publish(events, base, suffix);
              } finally {
                publishing.decrementAndGet();
              }
            }
          };
      harness.run(harness.service(name, counted, RelayMetrics.NONE));
    }

    appendUnits(3, 30, 10);
    // Take the lease away from its holder twice: another one takes over each time. The next
    // holder is awaited by its backend, since a terminated one may linger in pg_locks a moment.
    List<String> terminated = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      RelayHarness.await(
          () -> {
            List<String> holders = leaseHolders();
            return holders.size() == 1 && !terminated.contains(holders.get(0));
          },
          WITHIN,
          () -> "one relay holds the lease, not one terminated before: " + leaseHolders());
      String holder = leaseHolders().get(0);
      assertThat(
              PgExtension.rows(
                  PG.superuser(),
                  "SELECT pg_terminate_backend(" + Integer.parseInt(holder) + ")::text"))
          .as("the lease's holder terminated")
          .containsExactly("true");
      terminated.add(holder);
      appendUnits(1, 30, 10);
    }

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(windows.get()).isPositive();
    assertThat(most.get()).as("relays publishing at the same moment").isEqualTo(1);
  }

  /** The backends that hold a relay's lease, by pid. */
  private List<String> leaseHolders() {
    try {
      return PgExtension.rows(
          PG.superuser(),
          "SELECT a.pid::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
              + " WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'relay-%'");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void a_stream_ahead_of_the_cursor_after_the_duplicate_window_is_repaired_by_bothy_seq()
      throws Exception {
    harness.freshStream(Duration.ofSeconds(1));
    harness.log.append(UUID.randomUUID(), 30);
    // A relay that published and was acknowledged, then died before its cursor update: the stream
    // holds the first 20 events, the cursor none of them.
    List<Event> events = harness.logAfter(0);
    JetStreamClient direct = harness.client(harness.connection);
    List<Event> published = events.subList(0, 20);
    assertThat(direct.publish(published, 0)).allMatch(o -> o instanceof PublishOutcome.Stored);
    // Past the duplicate window, a republish with the same ids would be stored again.
    Thread.sleep(1500);

    List<Long> sent = new CopyOnWriteArrayList<>();
    RelayService relay =
        harness.startRelay(
            "relay-ahead",
            new RelayHarness.Delegating(direct) {
              @Override
              public List<PublishOutcome> publish(List<Event> window, long base, String idSuffix) {
                window.forEach(e -> sent.add(e.seq()));
                return real.publish(window, base, idSuffix);
              }
            });

    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(relay.state().halt()).isEmpty();
    // Repaired by moving the cursor to the stream's last Bothy-Seq, not by a republish that the
    // duplicate window might still have absorbed.
    assertThat(sent)
        .as("events the relay sent")
        .containsExactlyElementsOf(
            events.subList(20, events.size()).stream().map(Event::seq).toList());
  }

  @Test
  void a_stream_behind_the_cursor_halts_the_relay_while_appends_go_on_until_a_republish()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 10);
    RelayService first = harness.startRelay("relay-before-purge");
    harness.awaitCursorAtHead(WITHIN);
    harness.close();

    // An operator purges the stream: the cursor says it holds what it no longer holds.
    harness = new RelayHarness(PG, NATS);
    harness.connection.jetStreamManagement().purgeStream(RelayHarness.STREAM);
    RelayService relay = harness.startRelay("relay-after-purge");

    RelayHarness.await(
        () -> relay.state().mode() == Mode.HALTED, WITHIN, () -> "halted: " + relay.state());
    assertThat(relay.state().halt().orElseThrow().reason()).isEqualTo(Reason.STREAM_BEHIND_LOG);
    harness.log.append(UUID.randomUUID(), 5);
    assertThat(relay.lag()).isEqualTo(5);
    assertThat(harness.streamMessages()).isEmpty();
    assertThat(first.state().mode()).isEqualTo(Mode.OFF);

    // The operator republishes from the first retained event: the relay resumes on its own.
    republishFromTheOldest();
    harness.awaitCursorAtHead(WITHIN);
    harness.assertStreamHoldsTheLogAfter(0);
    assertThat(relay.state().mode()).isEqualTo(Mode.ACTIVE);
  }

  @Test
  void after_a_republish_a_halted_relay_without_the_lease_stands_by_instead_of_staying_halted()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 10);
    harness.startRelay("relay-before-purge");
    harness.awaitCursorAtHead(WITHIN);
    harness.close();
    harness = new RelayHarness(PG, NATS);
    harness.connection.jetStreamManagement().purgeStream(RelayHarness.STREAM);
    RelayService alex = harness.startRelay("relay-alex");
    RelayService sam = harness.startRelay("relay-sam");
    RelayHarness.await(
        () -> alex.state().mode() == Mode.HALTED && sam.state().mode() == Mode.HALTED,
        WITHIN,
        () -> "both halted: " + alex.state() + ", " + sam.state());

    republishFromTheOldest();

    harness.awaitCursorAtHead(WITHIN);
    // One resumes with the lease; the other must not page for a stream that is in order again.
    RelayHarness.await(
        () ->
            alex.state().halt().isEmpty()
                && sam.state().halt().isEmpty()
                // EnumSet, not Set.of: both standing by for a moment is a state to wait through,
                // and Set.of refuses the duplicate with an exception that ended the wait.
                && EnumSet.of(alex.state().mode(), sam.state().mode())
                    .equals(EnumSet.of(Mode.ACTIVE, Mode.STANDBY)),
        WITHIN,
        () -> "one active, one standing by: " + alex.state() + ", " + sam.state());
  }

  private void republishFromTheOldest() throws Exception {
    long min = harness.log.log.minRetained();
    long cursor = harness.cursor().orElseThrow();
    RelayRepublish republish =
        new RelayRepublish(
            RelayHarness.STREAM,
            64,
            harness.log.uow,
            new JooqRelayCursorRepository(),
            harness.log.log,
            harness.client(harness.connection),
            new PgRelayLease(harness.connection("republish"), RelayHarness.LEASE_TIMEOUT),
            dev.bothy.kernel.Clock.system());
    RelayRepublish.Report report = null;
    for (int i = 0; i < 100 && report == null; i++) {
      try {
        report = republish.republish(min);
      } catch (BothyException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT);
        Thread.sleep(50);
      }
    }
    assertThat(report).isNotNull();
    assertThat(report.republished()).contains(new RelayRepublish.Range(min, cursor));
    assertThat(report.lostToRetention()).isEmpty();
  }

  @Test
  void a_stream_purged_under_a_running_relay_halts_it_before_it_publishes_after_the_gap()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 10);
    RelayService relay = harness.startRelay("relay-purged-under");
    harness.awaitCursorAtHead(WITHIN);
    long before = harness.log.log.head();

    // The purge keeps the stream's last sequence, so the next window's expectation still holds.
    harness.connection.jetStreamManagement().purgeStream(RelayHarness.STREAM);
    harness.log.append(UUID.randomUUID(), 5);

    RelayHarness.await(
        () -> relay.state().mode() == Mode.HALTED, WITHIN, () -> "halted: " + relay.state());
    assertThat(relay.state().halt().orElseThrow().reason()).isEqualTo(Reason.STREAM_BEHIND_LOG);
    assertThat(harness.streamMessages()).isEmpty();
    assertThat(harness.cursor()).hasValue(before);
  }

  @Test
  void a_foreign_message_in_the_stream_halts_the_relay_and_the_cursor_never_passes_the_hole()
      throws Exception {
    harness.log.append(UUID.randomUUID(), 5);
    RelayService relay = harness.startRelay("relay-foreign");
    harness.awaitCursorAtHead(WITHIN);
    long before = harness.log.log.head();

    harness.connection.jetStream().publish(Streams.subjectOf("settings.updated"), new byte[] {1});
    harness.log.append(UUID.randomUUID(), 3);

    RelayHarness.await(
        () -> relay.state().mode() == Mode.HALTED, WITHIN, () -> "halted: " + relay.state());
    // Either the foreign message is the stream's last (a mismatch), or the relay's later messages
    // of the same window were stored after the refused first one (a hole): never a skip.
    assertThat(relay.state().halt().orElseThrow().reason())
        .isIn(Reason.STREAM_MISMATCH, Reason.HOLE_IN_STREAM);
    assertThat(harness.cursor()).hasValue(before);
  }
}
