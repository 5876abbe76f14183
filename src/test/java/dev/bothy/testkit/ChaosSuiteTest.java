package dev.bothy.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kit itself: it must see a consumer that does not converge and say where. Two broken consumers
 * on the log transport (the faults are made the same way on NATS, see {@code EchoChaosTest}): one
 * whose state depends on the order of deliveries (last writer wins), one that writes outside its
 * unit of work (also on NATS). And the refusals of a vacuous suite.
 */
class ChaosSuiteTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Script SIX_SETTINGS =
      Script.of(
          6,
          (i, ctx) ->
              ctx.append(
                  new EventDraft(
                      "settings.updated",
                      new ResourceRef("user", ctx.id("user " + i)),
                      Optional.empty(),
                      new SettingsUpdated(List.of("k" + i)))));

  @BeforeAll
  static void tables() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE chaos_last (id int PRIMARY KEY, setting text)");
      st.execute("CREATE TABLE chaos_outside (setting text)");
      st.execute("GRANT SELECT, INSERT, UPDATE ON chaos_last, chaos_outside TO bothy_app");
    }
  }

  /** Keeps the last setting it saw: a state that depends on the order of deliveries. */
  private static final ChaosConsumer LAST_WINS =
      ChaosConsumer.of(
          "probe",
          context ->
              List.of(
                  new BusConsumer(
                      "probe_last",
                      List.of(
                          BusHandler.of(
                              "probe.last",
                              EventTypes.SETTINGS_UPDATED,
                              (tx, event, at) ->
                                  PgTx.dsl()
                                      .execute(
                                          "INSERT INTO chaos_last VALUES (1, ?) ON CONFLICT (id)"
                                              + " DO UPDATE SET setting = excluded.setting",
                                          event.payload().changedKeys().get(0)))))),
          List.of("chaos_last"),
          owner -> PgExtension.rows(owner, "SELECT id || ' ' || setting FROM chaos_last"));

  /** Writes each setting through a connection of its own: outside the unit, so not rolled back. */
  private static final ChaosConsumer OUTSIDE =
      ChaosConsumer.of(
          "probe",
          context ->
              List.of(
                  new BusConsumer(
                      "probe_outside",
                      List.of(
                          BusHandler.of(
                              "probe.outside",
                              EventTypes.SETTINGS_UPDATED,
                              (tx, event, at) -> {
                                try (Connection c = PG.app().getConnection();
                                    PreparedStatement s =
                                        c.prepareStatement(
                                            "INSERT INTO chaos_outside VALUES (?)")) {
                                  s.setString(1, event.payload().changedKeys().get(0));
                                  s.execute();
                                }
                              })))),
          List.of("chaos_outside"),
          owner -> PgExtension.rows(owner, "SELECT setting FROM chaos_outside ORDER BY setting"));

  @Test
  void an_order_dependent_state_differs_under_reordering_and_the_report_names_the_line() {
    ChaosReport report =
        ChaosSuite.of(LAST_WINS, SIX_SETTINGS)
            .run(BusTransport.LOG, PG, null, List.of(Fault.REORDER, Fault.DUPLICATES));

    assertThat(report.clean().sections().get("tables")).containsExactly("1 k5");
    assertThat(report.outcome(Fault.DUPLICATES).converged()).isTrue();
    assertThat(report.outcome(Fault.REORDER).difference())
        .get()
        .asString()
        .startsWith("section 'tables', line 1:\n  clean run: 1 k5\n  this run:  1 k");
    assertThatThrownBy(report::assertConverged)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("REORDER on LOG: section 'tables', line 1")
        .hasMessageNotContaining("DUPLICATES");
  }

  @Test
  void a_write_outside_the_unit_is_doubled_by_a_crash_before_the_commit_and_a_lost_backend() {
    ChaosReport report =
        ChaosSuite.of(OUTSIDE, SIX_SETTINGS)
            .run(
                BusTransport.LOG,
                PG,
                null,
                List.of(
                    Fault.DUPLICATES,
                    Fault.CRASH_AFTER_COMMIT,
                    Fault.CRASH_BEFORE_COMMIT,
                    Fault.BACKEND_TERMINATED));

    assertThat(report.clean().lines("tables")).isEqualTo(6);
    assertThat(report.clean().lines("delivery rows")).isEqualTo(6);
    assertThat(report.outcome(Fault.DUPLICATES).converged()).as("the delivery rows hold").isTrue();
    assertThat(report.outcome(Fault.CRASH_AFTER_COMMIT).converged()).isTrue();
    assertThat(report.outcome(Fault.CRASH_BEFORE_COMMIT).difference())
        .contains("section 'tables', line 2:\n  clean run: k1\n  this run:  k0");
    assertThat(report.outcome(Fault.BACKEND_TERMINATED).converged()).isFalse();
    assertThat(report.outcome(Fault.CRASH_BEFORE_COMMIT).deliveries())
        .as("every event delivered twice")
        .isGreaterThanOrEqualTo(12);
  }

  @Test
  void on_nats_too_a_write_outside_the_unit_is_doubled_by_a_crash_and_holds_under_duplicates() {
    ChaosReport report =
        ChaosSuite.of(OUTSIDE, SIX_SETTINGS)
            .run(BusTransport.NATS, PG, NATS, List.of(Fault.DUPLICATES, Fault.CRASH_BEFORE_COMMIT));

    assertThat(report.clean().lines("tables")).isEqualTo(6);
    assertThat(report.outcome(Fault.DUPLICATES).converged()).isTrue();
    assertThat(report.outcome(Fault.DUPLICATES).deliveries()).isGreaterThanOrEqualTo(12);
    assertThat(report.outcome(Fault.CRASH_BEFORE_COMMIT).difference())
        .contains("section 'tables', line 2:\n  clean run: k1\n  this run:  k0");
  }

  @Test
  void the_first_difference_names_a_missing_or_extra_line_and_a_section() {
    EndState clean = state(List.of("a", "b"), List.of("x"));

    assertThat(clean.firstDifference(state(List.of("a", "b"), List.of("x")))).isEmpty();
    assertThat(clean.firstDifference(state(List.of("a"), List.of("x"))))
        .contains("section 'tables' has 1 lines, the clean run 2; first missing line 2: b");
    assertThat(clean.firstDifference(state(List.of("a", "b"), List.of("x", "y"))))
        .contains("section 'follow-on events' has 2 lines, the clean run 1; first extra line 2: y");
  }

  @Test
  void
      a_suite_refuses_a_consumer_without_tables_a_one_step_script_and_a_fault_of_another_transport() {
    assertThatThrownBy(() -> ChaosConsumer.of("probe", c -> List.of(), List.of(), o -> List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no table it owns");
    assertThatThrownBy(() -> Script.of(1, (i, ctx) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2 steps");
    assertThatThrownBy(
            () ->
                ChaosSuite.of(LAST_WINS, SIX_SETTINGS)
                    .run(BusTransport.LOG, PG, null, List.of(Fault.NATS_RESTART)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("NATS_RESTART does not exist on the LOG transport");
    assertThat(Fault.RELAY_KILL.appliesTo(BusTransport.LOG)).isFalse();
    assertThat(Fault.RELAY_KILL.appliesTo(BusTransport.NATS)).isTrue();
  }

  private static EndState state(List<String> tables, List<String> followOn) {
    Map<String, List<String>> sections = new LinkedHashMap<>();
    sections.put("tables", tables);
    sections.put("follow-on events", followOn);
    return new EndState(sections);
  }
}
