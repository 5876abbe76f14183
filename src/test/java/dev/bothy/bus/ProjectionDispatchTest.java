package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.Dispatch;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dispatch of a projection's handler: paused while a replay holds its lock (nothing written, a nak
 * of {@link Dispatch#PAUSED_RETRY} that the delivery limit does not touch), and refused when it
 * appends an event.
 */
class ProjectionDispatchTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String DURABLE = "probe_view";
  private static final String HANDLER = "probe.view";

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicBoolean append = new AtomicBoolean();
  private DispatchParts parts;

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS projection_probe (event_id uuid PRIMARY KEY)");
      st.execute("GRANT SELECT, INSERT, DELETE ON projection_probe TO bothy_app");
      st.execute("TRUNCATE projection_probe, event_deliveries, bus_dead_letters, jobs");
    }
    BusConsumer consumer =
        BusConsumer.projection(
            DURABLE,
            List.of(
                BusHandler.of(
                    HANDLER,
                    EventTypes.SETTINGS_UPDATED,
                    (tx, event, at) -> {
                      calls.incrementAndGet();
                      PgTx.dsl()
                          .execute(
                              "INSERT INTO projection_probe (event_id) VALUES (?)", event.id());
                      if (append.get()) {
                        tx.append(
                            new EventDraft(
                                "settings.updated",
                                new ResourceRef("user", UUID.randomUUID()),
                                Optional.empty(),
                                new SettingsUpdated(List.of("doubled on replay"))));
                      }
                    })),
            new Projection(
                List.of("projection_probe"),
                () -> PgTx.dsl().execute("DELETE FROM projection_probe")));
    parts = new DispatchParts(PG.app(), consumer);
  }

  private Dispatch.Result deliver(Event event, int count) {
    return parts.dispatch.deliver(
        event, List.of(parts.handlers.byName(HANDLER).orElseThrow()), count);
  }

  private static long count(String sql) throws Exception {
    return PgExtension.scalar(PG.owner(), sql);
  }

  @Test
  void a_paused_projection_runs_nothing_and_comes_again_without_the_delivery_limit()
      throws Exception {
    Event event = parts.appendOne();
    try (Connection replay = PG.owner().getConnection();
        Statement st = replay.createStatement()) {
      replay.setAutoCommit(false);
      st.execute(
          "SELECT pg_advisory_xact_lock("
              + PgProjectionLock.LOCK_CLASS
              + ", "
              + DURABLE.hashCode()
              + ")");

      Dispatch.Result paused = deliver(event, 10);

      assertThat(paused.paused()).isTrue();
      assertThat(paused.verdict()).as("no term at the 10th delivery").isEqualTo(Verdict.NAK);
      assertThat(paused.nakDelay()).contains(Dispatch.PAUSED_RETRY);
      assertThat(paused.perHandler()).containsEntry(HANDLER, "paused");
      assertThat(calls).hasValue(0);
      assertThat(count("SELECT count(*) FROM event_deliveries")).isZero();
      assertThat(parts.counted).contains(HANDLER + " paused");
      replay.rollback();
    }

    Dispatch.Result resumed = deliver(event, 1);

    assertThat(resumed.paused()).isFalse();
    assertThat(resumed.verdict()).isEqualTo(Verdict.ACK);
    assertThat(calls).hasValue(1);
    assertThat(count("SELECT count(*) FROM projection_probe")).isEqualTo(1);
  }

  @Test
  void a_projection_handler_that_appends_an_event_is_refused_and_writes_nothing() throws Exception {
    append.set(true);
    Event event = parts.appendOne();
    long head = parts.log.log.head();

    Dispatch.Result refused = deliver(event, 1);

    assertThat(refused.verdict()).isEqualTo(Verdict.TERM);
    assertThat(count("SELECT count(*) FROM projection_probe")).isZero();
    assertThat(parts.log.log.head()).as("nothing appended").isEqualTo(head);
    assertThat(
            PgExtension.rows(
                PG.owner(), "SELECT handler || ' ' || error_message FROM bus_dead_letters"))
        .singleElement()
        .asString()
        .startsWith(HANDLER + " the bus handler " + HANDLER + " belongs to a projection");
  }
}
