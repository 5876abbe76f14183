package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.bothy.bus.domain.Verdict;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatch contract (ADR 0024 and 0025) as one test body for every transport. A subclass says
 * how its transport delivers ({@link Transport}); every assertion reads the database or what the
 * handlers saw, so the same body holds the log transport ({@code LogDispatchTest}) and the NATS
 * transport ({@code NatsDispatchTest}).
 *
 * <p>The test handlers belong to the module {@code probe}: each counts its calls, writes one row of
 * {@code dispatch_probe} and appends one {@code settings.updated} follow-on event through its
 * {@link Tx}, then fails as the test scripts it per call.
 */
abstract class DispatchContract {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  /** What the contract needs of a transport. */
  interface Transport {
    /**
     * Delivers an event to the consumer's handlers as delivery number {@code n}, as the transport
     * would after {@code n - 1} failed ones (or a lost ack), and acts on the verdict.
     *
     * @return the verdict acted on, for the message as a whole
     */
    Verdict deliver(Event event, int n);

    /** The wait the transport keeps after a nak of delivery {@code n}. */
    Duration redeliveryDelay(int n);

    /** Replays a dead letter with the operator's verb and runs the delivery that follows. */
    Verdict replay(UUID deadLetterId);
  }

  /**
   * Builds the transport over the parts.
   *
   * @param parts the shared parts, with the test's consumer registered
   * @return the transport
   */
  abstract Transport transport(DispatchParts parts);

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final List<String> afterCommits = new CopyOnWriteArrayList<>();
  DispatchParts parts;
  Transport transport;

  @BeforeEach
  void cleanTables() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS dispatch_probe (handler text, event_id uuid,"
              + " PRIMARY KEY (handler, event_id))");
      st.execute("GRANT SELECT, INSERT ON dispatch_probe TO bothy_app");
      st.execute(
          "TRUNCATE dispatch_probe, event_deliveries, bus_dead_letters, jobs,"
              + " event_consumer_cursors");
    }
  }

  /** A handler that writes, appends, registers an after-commit probe, then fails per script. */
  BusHandler<SettingsUpdated> handler(String name, IntFunction<Throwable> failureOfCall) {
    return BusHandler.of(
        name,
        EventTypes.SETTINGS_UPDATED,
        (tx, event, at) -> {
          int call = calls.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
          parts.log.uow.put(DispatchParts.HANDLER_RAN, true);
          PgTx.dsl()
              .execute(
                  "INSERT INTO dispatch_probe (handler, event_id) VALUES (?, ?)", name, event.id());
          tx.append(
              new EventDraft(
                  "settings.updated",
                  new ResourceRef("user", UUID.randomUUID()),
                  Optional.empty(),
                  new SettingsUpdated(List.of("follow-on"))));
          tx.afterCommit(() -> afterCommits.add(name + " sees its row: " + rowCommitted(name)));
          Throwable failure = failureOfCall.apply(call);
          if (failure instanceof Error e) {
            throw e;
          }
          if (failure != null) {
            throw (Exception) failure;
          }
        });
  }

  static IntFunction<Throwable> never() {
    return call -> null;
  }

  static IntFunction<Throwable> always(Throwable failure) {
    return call -> failure;
  }

  static IntFunction<Throwable> firstCall(Throwable failure) {
    return call -> call == 1 ? failure : null;
  }

  static BothyException unavailable() {
    return BothyException.unavailable("the upstream service is away", null);
  }

  void start(BusHandler<?>... handlers) {
    parts = new DispatchParts(PG.app(), new BusConsumer("probe_main", List.of(handlers)));
    transport = transport(parts);
  }

  int calls(String handler) {
    AtomicInteger n = calls.get(handler);
    return n == null ? 0 : n.get();
  }

  static long count(String sql) throws SQLException {
    return Long.parseLong(PgExtension.rows(PG.owner(), sql).get(0));
  }

  private static boolean rowCommitted(String handler) {
    try {
      return count("SELECT count(*) FROM event_deliveries WHERE handler = '" + handler + "'") == 1;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void a_delivery_row_keeps_a_redelivered_event_from_running_the_handler_again()
      throws SQLException {
    start(handler("probe.ok", never()));
    Event e = parts.appendOne();

    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.ACK);
    assertThat(transport.deliver(e, 2))
        .as("a redelivery, as after a lost ack")
        .isEqualTo(Verdict.ACK);

    assertThat(calls("probe.ok")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM dispatch_probe")).isEqualTo(1);
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT handler || ' ' || event_id || ' ' || (handled_at = '"
                    + DispatchParts.START
                    + "'::timestamptz) FROM event_deliveries"))
        .containsExactly("probe.ok " + e.id() + " true");
    assertThat(parts.counted).containsExactly("probe.ok ack", "probe.ok duplicate");
  }

  @Test
  void the_handler_s_writes_appends_and_delivery_row_commit_together_or_not_at_all()
      throws SQLException {
    start(handler("probe.ok", never()));
    Event e = parts.appendOne();
    long eventsBefore = parts.events().size();

    // The handler ran and returned, then the commit failed: nothing of it may remain.
    parts.failAtCommit.set(unavailable());
    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.NAK);
    assertThat(calls("probe.ok")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM dispatch_probe")).isZero();
    assertThat(count("SELECT count(*) FROM event_deliveries")).isZero();
    assertThat(parts.events()).hasSize((int) eventsBefore);

    parts.failAtCommit.set(null);
    assertThat(transport.deliver(e, 2)).isEqualTo(Verdict.ACK);
    assertThat(count("SELECT count(*) FROM dispatch_probe")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM event_deliveries")).isEqualTo(1);
    assertThat(parts.events()).as("the follow-on event").hasSize((int) eventsBefore + 1);
  }

  @Test
  void retryable_failures_come_back_on_the_schedule_and_the_tenth_is_a_dead_letter()
      throws SQLException {
    start(handler("probe.flaky", always(unavailable())));
    Event e = parts.appendOne();

    assertThat(IntStream.rangeClosed(1, 9).mapToObj(transport::redeliveryDelay).toList())
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            Duration.ofMinutes(2),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10));
    for (int n = 1; n <= 9; n++) {
      assertThat(transport.deliver(e, n)).as("delivery " + n).isEqualTo(Verdict.NAK);
    }
    assertThat(count("SELECT count(*) FROM bus_dead_letters")).isZero();

    assertThat(transport.deliver(e, 10)).isEqualTo(Verdict.TERM);

    assertThat(calls("probe.flaky")).isEqualTo(10);
    DeadLetter letter = parts.deadLetters.list(false, 10).get(0);
    assertThat(letter.handler()).isEqualTo("probe.flaky");
    assertThat(letter.durable()).isEqualTo("probe_main");
    assertThat(letter.eventId()).isEqualTo(e.id());
    assertThat(letter.eventSeq()).isEqualTo(e.seq());
    assertThat(letter.eventType()).isEqualTo("settings.updated");
    assertThat(letter.errorKind()).isEqualTo(ErrorKind.UNAVAILABLE.code());
    assertThat(letter.errorClass()).isEqualTo(BothyException.class.getName());
    assertThat(letter.deliveries()).isEqualTo(10);
    assertThat(count("SELECT count(*) FROM event_deliveries")).isZero();
    assertThat(parts.counted).containsOnlyOnce("probe.flaky dead_letter");
  }

  @Test
  void a_non_retryable_kind_a_plain_exception_and_an_error_term_into_dead_letters()
      throws SQLException {
    start(
        handler("probe.ok", never()),
        handler("probe.invalid", always(BothyException.invalid("the ping is malformed"))),
        handler("probe.plain", always(new IllegalStateException("a bug"))),
        handler("probe.error", always(new AssertionError("an error"))));
    Event e = parts.appendOne();

    assertThat(transport.deliver(e, 1)).as("term wins over ack").isEqualTo(Verdict.TERM);

    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT handler || ' ' || error_kind || ' ' || error_class || ' ' || deliveries"
                    + " FROM bus_dead_letters ORDER BY handler"))
        .containsExactly(
            "probe.error error java.lang.AssertionError 1",
            "probe.invalid invalid dev.bothy.kernel.BothyException 1",
            "probe.plain exception java.lang.IllegalStateException 1");
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM dispatch_probe"))
        .containsExactly("probe.ok");

    assertThat(transport.deliver(e, 2))
        .as("a redelivery: parked handlers do not run")
        .isEqualTo(Verdict.ACK);
    assertThat(List.of(calls("probe.invalid"), calls("probe.plain"), calls("probe.error")))
        .containsExactly(1, 1, 1);
    assertThat(parts.counted).contains("probe.invalid parked", "probe.ok duplicate");
  }

  @Test
  void with_several_handlers_a_nak_wins_over_a_term_over_an_ack() throws SQLException {
    start(
        handler("probe.ok", never()),
        handler("probe.term", always(BothyException.conflict("the ping is taken"))),
        handler("probe.nak", firstCall(unavailable())));
    Event e = parts.appendOne();

    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.NAK);
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM event_deliveries"))
        .containsExactly("probe.ok");
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM bus_dead_letters"))
        .containsExactly("probe.term");

    assertThat(transport.deliver(e, 2)).isEqualTo(Verdict.ACK);
    assertThat(List.of(calls("probe.ok"), calls("probe.term"), calls("probe.nak")))
        .containsExactly(1, 1, 2);
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM event_deliveries ORDER BY 1"))
        .containsExactly("probe.nak", "probe.ok");
  }

  @Test
  void a_replayed_dead_letter_runs_its_handler_again_through_the_same_dedupe() throws SQLException {
    start(handler("probe.flaky", firstCall(BothyException.invalid("bad until fixed"))));
    Event e = parts.appendOne();
    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.TERM);
    DeadLetter dead = parts.deadLetters.list(false, 10).get(0);

    assertThat(transport.replay(dead.id())).isEqualTo(Verdict.ACK);

    assertThat(calls("probe.flaky")).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM event_deliveries")).isEqualTo(1);
    DeadLetter replayed = parts.deadLetters.show(dead.id());
    assertThat(replayed.replayedAt()).contains(DispatchParts.START);
    assertThat(replayed.replays()).isEqualTo(1);
    assertThat(parts.deadLetters.list(false, 10)).isEmpty();
    assertThat(parts.deadLetters.list(true, 10))
        .extracting(DeadLetter::id)
        .containsExactly(dead.id());
    assertThatThrownBy(() -> parts.deadLetters.replay(dead.id()))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("was replayed");

    // The same pair dies again (as after a race): a replay now finds the delivery row and does
    // not run the handler a third time.
    parts.log.uow.run(
        () ->
            parts.letters.upsert(
                new DeadLetter(
                    dead.id(),
                    "probe.flaky",
                    "probe_main",
                    e.id(),
                    e.seq(),
                    e.type(),
                    "invalid",
                    "x",
                    "",
                    1,
                    DispatchParts.START,
                    Optional.empty(),
                    0)));
    assertThat(parts.deadLetters.list(false, 10)).hasSize(1);
    assertThat(parts.deadLetters.errors(dead.id()))
        .as("every death of the pair, oldest first")
        .extracting(DeadLetterError::kind, DeadLetterError::error, DeadLetterError::deliveries)
        .containsExactly(
            tuple(dead.errorKind(), dead.errorClass(), dead.deliveries()),
            tuple("invalid", "x", 1));
    assertThat(transport.replay(dead.id())).isEqualTo(Verdict.ACK);
    assertThat(calls("probe.flaky")).isEqualTo(2);
    assertThat(parts.deadLetters.show(dead.id()).replays()).isEqualTo(2);
    assertThat(parts.deadLetters.errors(dead.id())).as("a replay adds no death").hasSize(2);
  }

  @Test
  void after_commit_runs_only_after_the_commit_and_never_after_a_rollback() {
    start(handler("probe.late", firstCall(unavailable())));
    Event e = parts.appendOne();

    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.NAK);
    assertThat(afterCommits).as("the unit rolled back").isEmpty();

    assertThat(transport.deliver(e, 2)).isEqualTo(Verdict.ACK);
    assertThat(afterCommits).containsExactly("probe.late sees its row: true");

    assertThat(transport.deliver(e, 3)).as("a duplicate runs no handler").isEqualTo(Verdict.ACK);
    assertThat(new ArrayList<>(afterCommits)).hasSize(1);
  }
}
