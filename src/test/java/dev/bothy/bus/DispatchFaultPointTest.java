package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bothy.bus.app.DispatchFaults;
import dev.bothy.bus.app.DispatchFaults.Point;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.bus.domain.Verdict;
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
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault points of dispatch (ADR 0026), armed through the tests' accessor {@link
 * DispatchFaults}: a crash before the commit leaves nothing of the handler's unit and no verdict; a
 * crash after the commit leaves the unit committed, so the redelivery is a duplicate; disarmed,
 * dispatch runs as always.
 */
class DispatchFaultPointTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private final AtomicInteger calls = new AtomicInteger();
  private DispatchParts parts;
  private List<HandlerRegistry.Registered> handlers;

  @BeforeEach
  void start() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS fault_probe (event_id uuid PRIMARY KEY)");
      st.execute("GRANT SELECT, INSERT ON fault_probe TO bothy_app");
      st.execute("TRUNCATE fault_probe, event_deliveries, bus_dead_letters");
    }
    parts =
        new DispatchParts(
            PG.app(),
            new BusConsumer(
                "probe_main",
                List.of(
                    BusHandler.of(
                        "probe.write",
                        EventTypes.SETTINGS_UPDATED,
                        (tx, event, at) -> {
                          calls.incrementAndGet();
                          PgTx.dsl()
                              .execute("INSERT INTO fault_probe (event_id) VALUES (?)", event.id());
                          tx.append(
                              new EventDraft(
                                  "settings.updated",
                                  new ResourceRef("user", UUID.randomUUID()),
                                  Optional.empty(),
                                  new SettingsUpdated(List.of("follow-on"))));
                        }))));
    handlers = parts.handlers.interested("settings.updated");
  }

  private static long count(String table) throws SQLException {
    return Long.parseLong(PgExtension.rows(PG.owner(), "SELECT count(*) FROM " + table).get(0));
  }

  @Test
  void a_crash_before_the_commit_leaves_nothing_and_no_verdict_and_the_next_delivery_runs_again()
      throws SQLException {
    Event e = parts.appendOne();
    int eventsBefore = parts.events().size();
    DispatchFaults.arm(parts.dispatch, (point, handler, event) -> point == Point.BEFORE_COMMIT);

    Throwable crash = catchThrowable(() -> parts.dispatch.deliver(e, handlers, 1));

    assertThat(DispatchFaults.isCrash(crash)).as("a simulated crash: " + crash).isTrue();
    assertThat(crash).hasMessageContaining("BEFORE_COMMIT").hasMessageContaining("probe.write");
    assertThat(calls.get()).isEqualTo(1);
    assertThat(count("fault_probe")).isZero();
    assertThat(count("event_deliveries")).isZero();
    assertThat(count("bus_dead_letters")).as("a crash is no verdict").isZero();
    assertThat(parts.events()).hasSize(eventsBefore);

    DispatchFaults.disarm(parts.dispatch);
    assertThat(parts.dispatch.deliver(e, handlers, 2).verdict()).isEqualTo(Verdict.ACK);
    assertThat(calls.get()).isEqualTo(2);
    assertThat(count("fault_probe")).isEqualTo(1);
    assertThat(count("event_deliveries")).isEqualTo(1);
    assertThat(parts.events()).hasSize(eventsBefore + 1);
  }

  @Test
  void a_crash_after_the_commit_keeps_the_unit_and_the_redelivery_is_a_duplicate()
      throws SQLException {
    Event e = parts.appendOne();
    DispatchFaults.arm(parts.dispatch, (point, handler, event) -> point == Point.AFTER_COMMIT);

    Throwable crash = catchThrowable(() -> parts.dispatch.deliver(e, handlers, 1));

    assertThat(DispatchFaults.isCrash(crash)).as("a simulated crash: " + crash).isTrue();
    assertThat(count("fault_probe")).isEqualTo(1);
    assertThat(count("event_deliveries")).isEqualTo(1);

    DispatchFaults.disarm(parts.dispatch);
    assertThat(parts.dispatch.deliver(e, handlers, 2).perHandler())
        .containsEntry("probe.write", "duplicate");
    assertThat(calls.get()).isEqualTo(1);
  }

  @Test
  void a_plan_sees_both_points_of_each_handler_and_unarmed_dispatch_never_crashes()
      throws SQLException {
    Event e = parts.appendOne();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    DispatchFaults.arm(
        parts.dispatch,
        (point, handler, event) -> {
          seen.add(point + " " + handler + " " + event.id().equals(e.id()));
          return false;
        });

    assertThat(parts.dispatch.deliver(e, handlers, 1).verdict()).isEqualTo(Verdict.ACK);

    assertThat(seen)
        .containsExactly("BEFORE_COMMIT probe.write true", "AFTER_COMMIT probe.write true");
    DispatchFaults.disarm(parts.dispatch);
    Event other = parts.appendOne();
    assertThat(parts.dispatch.deliver(other, handlers, 1).verdict()).isEqualTo(Verdict.ACK);
    assertThat(seen).hasSize(2);
    assertThat(count("event_deliveries")).isEqualTo(2);
  }
}
