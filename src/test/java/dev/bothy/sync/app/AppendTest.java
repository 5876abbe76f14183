package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.SettableClock;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ReadResult;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import io.dropwizard.jackson.Jackson;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

class AppendTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  // Registers its SDK as the global OpenTelemetry, as the agent does in production.
  @RegisterExtension static final OpenTelemetryExtension OTEL = OpenTelemetryExtension.create();

  private static final int MAX_PAYLOAD_BYTES = 200;
  private static final UUID ALEX = Ids.newId();

  private HookRegistry hooks;
  private PgUnitOfWork uow;
  private AppendService appender;
  private EventLogService log;

  @BeforeEach
  void setUp() {
    EventLogFixture fixture =
        new EventLogFixture(PG.app(), Clock.system(), MAX_PAYLOAD_BYTES, (n, nanos) -> {}, 2);
    hooks = fixture.hooks;
    uow = fixture.uow;
    appender = fixture.appender;
    log = fixture.log;
  }

  private static EventDraft draft(String... keys) {
    return new EventDraft(
        "settings.updated",
        new ResourceRef("user", ALEX),
        Optional.of(ALEX),
        new SettingsUpdated(List.of(keys)));
  }

  @Test
  void many_writers_with_rollbacks_give_a_gapless_log_in_commit_order() throws Exception {
    List<long[]> commitOrder = Collections.synchronizedList(new ArrayList<>());
    TxKey<long[]> range = TxKey.of("test.range");
    // The audit phase runs after the sync hook, still holding the event_seq lock: the order in
    // which units get here is the order in which they commit.
    hooks.register(
        Phase.AUDIT,
        "test.commit-order",
        () -> {
          int n = uow.get(range).map(r -> (int) r[0]).orElse(0);
          if (n == 0) {
            return; // the reader's units
          }
          if (ThreadLocalRandom.current().nextInt(6) == 0) {
            throw new IllegalStateException("rolled back on purpose");
          }
          long head = log.head();
          commitOrder.add(new long[] {head - n + 1, head});
        });
    long start = log.head();
    AtomicBoolean writing = new AtomicBoolean(true);
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    int writers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try {
      Future<?> reader =
          pool.submit(
              () -> {
                while (writing.get()) {
                  String problem = prefixProblem(start);
                  if (problem != null) {
                    problems.add(problem);
                  }
                }
                return null;
              });
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    int n = 1 + ThreadLocalRandom.current().nextInt(5);
                    try {
                      uow.run(
                          () -> {
                            EventDraft[] drafts = new EventDraft[n];
                            for (int k = 0; k < n; k++) {
                              drafts[k] = draft("k" + k);
                            }
                            appender.append(drafts);
                            uow.put(range, new long[] {n});
                            return null;
                          });
                    } catch (IllegalStateException rolledBack) {
                      // On purpose; the numbers it took must be reused, not lost.
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      writing.set(false);
      reader.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(problems).isEmpty();
    assertThat(prefixProblem(start)).isNull();
    List<Long> seqs = allSeqsAfter(start);
    long head = log.head();
    assertThat(seqs).hasSize((int) (head - start));
    for (int i = 0; i < seqs.size(); i++) {
      assertThat(seqs.get(i)).isEqualTo(start + 1 + i);
    }
    long expectedFirst = start + 1;
    for (long[] r : commitOrder) {
      assertThat(r[0]).as("ranges follow commit order without a gap").isEqualTo(expectedFirst);
      expectedFirst = r[1] + 1;
    }
    assertThat(expectedFirst - 1).isEqualTo(head);
  }

  @Test
  void a_rolled_back_unit_leaves_no_trace_and_no_gap() {
    long head = log.head();

    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      appender.append(draft("a"), draft("b"));
                      throw new IllegalStateException("no");
                    }))
        .hasMessage("no");
    assertThat(log.head()).isEqualTo(head);

    uow.run(() -> appender.append(draft("c")));
    assertThat(log.head()).isEqualTo(head + 1);
    ReadResult page = log.readAfter(head, 10);
    assertThat(page).isInstanceOf(ReadResult.Page.class);
    Event event = ((ReadResult.Page) page).events().get(0);
    assertThat(event.seq()).isEqualTo(head + 1);
    assertThat(event.payload()).contains("\"c\"");
    assertThat(event.resource()).isEqualTo(new ResourceRef("user", ALEX));
    assertThat(event.actorId()).contains(ALEX);
    assertThat(event.id().version()).isEqualTo(7);
  }

  @Test
  void the_append_turn_is_given_back_after_a_rollback_and_after_a_commit() {
    EventLogFixture single =
        new EventLogFixture(PG.app(), Clock.system(), MAX_PAYLOAD_BYTES, (n, nanos) -> {}, 1);
    long head = single.log.head();

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(
              () ->
                  single.uow.run(
                      () -> {
                        single.appender.append(draft("rolled back"));
                        throw new IllegalStateException("rollback");
                      }))
          .hasMessage("rollback");
      single.append(ALEX, 1);
    }

    assertThat(single.log.head()).isEqualTo(head + 3);
  }

  @Test
  void a_unit_without_events_takes_no_counter_lock() throws SQLException {
    try (Connection holder = PG.owner().getConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT * FROM sequence_counters WHERE name = 'event_seq' FOR UPDATE");
      }

      assertThat(uow.run(() -> "no events")).isEqualTo("no events");
      holder.rollback();
    }
  }

  @Test
  void the_notification_arrives_after_the_commit_and_never_for_a_rollback() throws Exception {
    try (Connection listener =
        DriverManager.getConnection(PG.jdbcUrl(), "bothy_app", PG.password())) {
      try (Statement st = listener.createStatement()) {
        st.execute("LISTEN event_log");
      }
      PGConnection pg = listener.unwrap(PGConnection.class);
      List<Integer> beforeCommit = new ArrayList<>();
      hooks.register(
          Phase.AUDIT,
          "test.before-commit",
          () -> {
            try {
              PGNotification[] seen = pg.getNotifications(200);
              beforeCommit.add(seen == null ? 0 : seen.length);
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          });

      uow.run(() -> appender.append(draft("x"), draft("y")));
      PGNotification[] after = pg.getNotifications(5000);

      assertThat(beforeCommit).containsExactly(0);
      assertThat(after).hasSize(1);
      assertThat(after[0].getName()).isEqualTo("event_log");
      assertThat(after[0].getParameter()).isEqualTo(Long.toString(log.head()));

      assertThatThrownBy(
              () ->
                  uow.run(
                      () -> {
                        appender.append(draft("z"));
                        throw new IllegalStateException("rollback");
                      }))
          .hasMessage("rollback");
      PGNotification[] none = pg.getNotifications(500);
      assertThat(none == null ? 0 : none.length).isZero();
    }
  }

  @Test
  void a_receipt_tells_the_numbers_of_its_events_once_the_sync_phase_gave_them() {
    uow.run(() -> appender.append(draft("before")));
    long head = log.head();
    List<Long> beforeSync = new ArrayList<>();
    dev.bothy.sync.AppendReceipt[] receipts =
        uow.run(
            () -> {
              dev.bothy.sync.AppendReceipt first = appender.appendNumbered(draft("a"), draft("b"));
              dev.bothy.sync.AppendReceipt second = appender.appendNumbered(draft("c"));
              assertThatThrownBy(first::seqs)
                  .isInstanceOf(BothyException.class)
                  .hasMessageContaining("numbered in the sync phase");
              beforeSync.add(head);
              return new dev.bothy.sync.AppendReceipt[] {first, second};
            });

    assertThat(beforeSync).containsExactly(head);
    assertThat(receipts[0].seqs()).containsExactly(head + 1, head + 2);
    assertThat(receipts[1].seqs()).containsExactly(head + 3);
    ReadResult.Page page = (ReadResult.Page) log.readAfter(head, 10);
    assertThat(page.events().stream().map(e -> e.id()).toList())
        .containsExactly(
            receipts[0].ids().get(0), receipts[0].ids().get(1), receipts[1].ids().get(0));
  }

  @Test
  void every_field_is_stored_as_appended_whatever_the_payload_strings_hold() throws Exception {
    Instant at = Instant.parse("2026-12-02T03:04:05.123456Z");
    EventLogFixture fixed =
        new EventLogFixture(
            PG.app(), new SettableClock(at), MAX_PAYLOAD_BYTES, (n, nanos) -> {}, 2);
    List<List<String>> keys =
        List.of(
            List.of("", "NULL", "null", " spaced "),
            List.of("a,b", "{braces}", "quote \" inside"),
            List.of("back\\slash", "\\\"", "ends with \\"),
            List.of("tab\tnew\nline", "unicode \u00e9\u4e2d\ud83d\ude00"));
    UUID robin = Ids.newId();
    long before = log.head();
    List<UUID> ids =
        fixed.uow.run(
            () ->
                fixed.appender.append(
                    keys.stream()
                        .map(
                            k ->
                                new EventDraft(
                                    "settings.updated",
                                    new ResourceRef("user", robin),
                                    k.size() % 2 == 0 ? Optional.of(ALEX) : Optional.empty(),
                                    new SettingsUpdated(k)))
                        .toArray(EventDraft[]::new)));

    List<Event> events = ((ReadResult.Page) log.readAfter(before, 10)).events();
    assertThat(events).hasSize(keys.size());
    ObjectMapper json = Jackson.newObjectMapper();
    for (int i = 0; i < keys.size(); i++) {
      Event event = events.get(i);
      assertThat(event.seq()).isEqualTo(before + 1 + i);
      assertThat(event.id()).isEqualTo(ids.get(i));
      assertThat(event.type()).isEqualTo("settings.updated");
      assertThat(event.occurredAt()).isEqualTo(at);
      assertThat(event.resource()).isEqualTo(new ResourceRef("user", robin));
      assertThat(event.actorId())
          .isEqualTo(keys.get(i).size() % 2 == 0 ? Optional.of(ALEX) : Optional.empty());
      assertThat(json.readValue(event.payload(), SettingsUpdated.class).changedKeys())
          .containsExactlyElementsOf(keys.get(i));
      assertThat(event.traceparent()).isEmpty();
    }
  }

  @Test
  void an_event_keeps_the_trace_context_of_the_span_that_appended_it() {
    long before = log.head();
    Tracer tracer = OTEL.getOpenTelemetry().getTracer("bothy-test");
    Span span = tracer.spanBuilder("POST /v1/events").startSpan();
    Scope scope = span.makeCurrent();
    try {
      uow.run(() -> appender.append(draft("locale"), draft("theme")));
    } finally {
      scope.close();
      span.end();
    }
    uow.run(() -> appender.append(draft("outside")));

    List<Event> events = ((ReadResult.Page) log.readAfter(before, 10)).events();
    String expected =
        "00-"
            + span.getSpanContext().getTraceId()
            + "-"
            + span.getSpanContext().getSpanId()
            + "-"
            + span.getSpanContext().getTraceFlags().asHex();
    assertThat(events).hasSize(3);
    assertThat(events.get(0).traceparent()).contains(expected);
    assertThat(events.get(1).traceparent()).contains(expected);
    assertThat(events.get(2).traceparent()).as("no span, no trace context").isEmpty();
  }

  @Test
  void appending_outside_a_unit_or_outside_the_work_phase_is_internal() {
    assertThatThrownBy(() -> appender.append(draft("a")))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL));
    List<String> seen = new ArrayList<>();
    hooks.register(
        Phase.AUDIT,
        "test.late-append",
        () -> {
          try {
            appender.append(draft("late"));
          } catch (BothyException e) {
            seen.add(e.kind().code() + ": " + e.getMessage());
          }
        });

    uow.run(() -> null);

    assertThat(seen)
        .containsExactly("internal: events are appended in the work phase of a unit, not in audit");
  }

  @Test
  void bad_drafts_are_invalid_and_nothing_of_the_unit_is_written() {
    long head = log.head();
    List<EventDraft> bad =
        List.of(
            new EventDraft(
                "nothing.registered",
                new ResourceRef("user", ALEX),
                Optional.empty(),
                new SettingsUpdated(List.of())),
            new EventDraft(
                "settings.updated", new ResourceRef("user", ALEX), Optional.empty(), "a string"),
            new EventDraft(
                "settings.updated",
                new ResourceRef("group", ALEX),
                Optional.empty(),
                new SettingsUpdated(List.of())),
            draft("x".repeat(MAX_PAYLOAD_BYTES)));
    List<String> messages = new ArrayList<>();
    for (EventDraft b : bad) {
      try {
        uow.run(
            () -> {
              appender.append(draft("fine"));
              return appender.append(b);
            });
      } catch (BothyException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID);
        messages.add(e.getMessage());
      }
    }

    assertThat(messages).hasSize(4);
    assertThat(messages.get(0)).contains("unknown event type: nothing.registered");
    assertThat(messages.get(1)).contains("takes a SettingsUpdated payload, not a String");
    assertThat(messages.get(2)).contains("resource of type user, not group");
    assertThat(messages.get(3)).contains("sync.maxPayloadBytes");
    assertThat(log.head()).as("nothing of those units was written").isEqualTo(head);
  }

  @Test
  void reading_by_numbers_gives_the_held_events_once_each_in_number_order() throws SQLException {
    uow.run(() -> appender.append(draft("1"), draft("2"), draft("3"), draft("4"), draft("5")));
    long head = log.head();
    // Retention drops old partitions whole; deleting as the owner has the same effect here.
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM event_log WHERE seq = " + (head - 4));
    }

    List<Event> read = log.readNumbers(List.of(head, head - 2, head, head - 4, head + 7));
    assertThat(read).extracting(Event::seq).containsExactly(head - 2, head);
    assertThat(read.get(1).payload()).contains("\"5\"");
    assertThat(log.readNumbers(List.of())).isEmpty();
    assertThatThrownBy(() -> log.readNumbers(List.of(head, 0L)))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("below 1");
  }

  @Test
  void reading_below_the_retained_minimum_says_resync_with_the_minimum() throws SQLException {
    uow.run(() -> appender.append(draft("1"), draft("2"), draft("3"), draft("4"), draft("5")));
    long head = log.head();
    // Retention drops old partitions whole; deleting as the owner has the same effect here.
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM event_log WHERE seq <= " + (head - 2));
    }

    assertThat(log.minRetained()).isEqualTo(head - 1);
    assertThat(log.readAfter(head - 4, 10)).isEqualTo(new ReadResult.ResyncRequired(head - 1));
    ReadResult fromMin = log.readAfter(head - 2, 10);
    assertThat(fromMin).isInstanceOf(ReadResult.Page.class);
    assertThat(((ReadResult.Page) fromMin).events())
        .extracting(Event::seq)
        .containsExactly(head - 1, head);
    assertThat(((ReadResult.Page) fromMin).nextAfter()).isEqualTo(head);
    ReadResult atHead = log.readAfter(head, 10);
    assertThat(atHead).isEqualTo(new ReadResult.Page(List.of(), head));
    assertThatThrownBy(() -> log.readAfter(-1, 10)).hasMessageContaining("negative");
    assertThatThrownBy(() -> log.readAfter(0, 0)).hasMessageContaining("at least 1");
  }

  @Test
  void the_runtime_role_cannot_update_or_delete_events() throws SQLException {
    uow.run(() -> appender.append(draft("kept")));
    try (Connection c = PG.app().getConnection();
        Statement st = c.createStatement()) {
      assertThatThrownBy(() -> st.execute("UPDATE event_log SET type = 'x'"))
          .hasMessageContaining("permission denied");
      assertThatThrownBy(() -> st.execute("DELETE FROM event_log"))
          .hasMessageContaining("permission denied");
    }
  }

  private String prefixProblem(long start) {
    ReadResult result = log.readAfter(start, 100_000);
    if (!(result instanceof ReadResult.Page page)) {
      return "unexpected " + result;
    }
    long expected = start + 1;
    for (Event e : page.events()) {
      if (e.seq() != expected) {
        return "expected " + expected + " but read " + e.seq();
      }
      expected++;
    }
    return null;
  }

  private List<Long> allSeqsAfter(long start) {
    ReadResult result = log.readAfter(start, 100_000);
    return ((ReadResult.Page) result).events().stream().map(Event::seq).toList();
  }
}
