package dev.bothy.wire;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.system.SystemModule;
import dev.bothy.system.app.Echoes;
import dev.bothy.testing.PgExtension;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bus replay <durable>} on the log transport, against flow 00 running in the {@code all}
 * role: the projection {@code system_echoes} rebuilt equal to what it was, its pause across
 * processes (a lock held by another session), and the refusals. About 10 s: one application, a few
 * pings, waits bounded by {@link #DEADLINE_NANOS}.
 */
class BusReplayCommandTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  /** How long the workers may take to echo and project: a bound of the loops. */
  private static final long DEADLINE_NANOS = 30_000_000_000L;

  private static final String ECHOES =
      "SELECT ping_id || ' ' || pinged_event_id || ' ' || echo_event_id || ' ' || echo_seq || ' '"
          + " || echoed_at FROM system_echoes ORDER BY ping_id";

  @TempDir Path dir;
  private Path config;

  @BeforeEach
  void setUp() throws Exception {
    config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + PG.jdbcUrl() + "\n");
  }

  private static String postPing() throws Exception {
    return json(APP.app()
            .send(
                APP.app()
                    .request("/v1/system/pings", ApiApp.ALEX_SYSTEM)
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build()))
        .get("id")
        .asText();
  }

  private static long count(String sql) throws Exception {
    return PgExtension.scalar(PG.owner(), sql);
  }

  /** Waits until the query answers the number, within {@link #DEADLINE_NANOS}. */
  private static void await(String sql, long expected) throws Exception {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (count(sql) != expected) {
      assertThat(System.nanoTime()).as(sql + " reaches " + expected).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static List<String> rows(String sql) throws Exception {
    return PgExtension.rows(PG.owner(), sql);
  }

  private CommandLine.Outcome replay(String durable) {
    return CommandLine.run("bus", "replay", durable, config.toString());
  }

  private static String deliveries(String handler) {
    return "SELECT count(*) FROM event_deliveries WHERE handler = '" + handler + "'";
  }

  @Test
  void replay_rebuilds_flow_00s_projection_equal_to_the_state_before() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(postPing());
    }
    await(
        "SELECT count(*) FROM system_pings WHERE status = 'echoed'",
        count("SELECT count(*) FROM system_pings"));
    long pings = count("SELECT count(*) FROM system_pings");
    await("SELECT count(*) FROM system_echoes", pings);
    await(deliveries(Echoes.NAME), pings);
    assertThat(pings).isGreaterThanOrEqualTo(ids.size());
    List<String> before = rows(ECHOES);
    List<String> pingsBefore =
        rows("SELECT id || ' ' || status || ' ' || echoed_at FROM system_pings ORDER BY id");
    long head = count("SELECT max(seq) FROM event_log");
    long echoDeliveries = count(deliveries("system.echo"));

    CommandLine.Outcome replayed = replay(SystemModule.ECHOES_DURABLE);

    assertThat(replayed.succeeded()).as(replayed.err()).isTrue();
    assertThat(replayed.out())
        .contains("transport: the log (bus.nats.url is not set)")
        .contains("pausing system_echoes in every process")
        .contains(
            "reset system_echoes: "
                + pings
                + " rows of [system_echoes] and "
                + pings
                + " delivery rows deleted in one transaction")
        .contains("restarted system_echoes: the log transport: " + pings + " bus.dispatch jobs")
        .contains("replayed system_echoes");
    await("SELECT count(*) FROM system_echoes", pings);
    await(deliveries(Echoes.NAME), pings);
    assertThat(rows(ECHOES)).as("the projection rebuilt from the log").isEqualTo(before);
    assertThat(rows("SELECT id || ' ' || status || ' ' || echoed_at FROM system_pings ORDER BY id"))
        .as("system_echo is no projection: untouched")
        .isEqualTo(pingsBefore);
    assertThat(count(deliveries("system.echo"))).isEqualTo(echoDeliveries);
    assertThat(count("SELECT max(seq) FROM event_log"))
        .as("a replay appends no event")
        .isEqualTo(head);
  }

  @Test
  void a_paused_projection_runs_no_handler_while_the_reset_holds_it_and_picks_up_after()
      throws Exception {
    try (Connection replaying = PG.owner().getConnection();
        Statement st = replaying.createStatement()) {
      replaying.setAutoCommit(false);
      // What the replay's reset unit holds, from another session: the pause across processes.
      st.execute(
          "SELECT pg_advisory_xact_lock("
              + PgProjectionLock.LOCK_CLASS
              + ", "
              + SystemModule.ECHOES_DURABLE.hashCode()
              + ")");
      String id = postPing();
      await("SELECT count(*) FROM system_pings WHERE status = 'echoed' AND id = '" + id + "'", 1);
      String job =
          "SELECT count(*) FROM jobs WHERE kind = 'bus.dispatch' AND args->>'handler' = '"
              + HandlerRegistry.idOf(Echoes.NAME)
              + "' AND state = 'scheduled' AND attempt = 0";
      // Snoozed, not failed: its attempt is not counted.
      await(job, 1);
      assertThat(count("SELECT count(*) FROM system_echoes WHERE ping_id = '" + id + "'")).isZero();
      replaying.rollback();
      await("SELECT count(*) FROM system_echoes WHERE ping_id = '" + id + "'", 1);
    }
  }

  @Test
  void a_consumer_that_is_not_a_projection_is_refused_with_the_reason() throws Exception {
    long deliveries = count("SELECT count(*) FROM event_deliveries");

    CommandLine.Outcome refused = replay(SystemModule.ECHO_DURABLE);

    assertThat(refused.succeeded()).isFalse();
    assertThat(refused.err())
        .contains("bus replay: the bus consumer system_echo is not a projection")
        .contains("[system.echo]")
        .contains("a replay would do it again; the projections are [system_echoes]")
        .doesNotContain("at dev.bothy");
    assertThat(refused.out()).doesNotContain("pausing");
    assertThat(count("SELECT count(*) FROM event_deliveries")).isEqualTo(deliveries);
  }

  @Test
  void an_unknown_durable_is_refused_naming_the_known_ones() {
    CommandLine.Outcome unknown = replay("robin_feed");

    assertThat(unknown.succeeded()).isFalse();
    assertThat(unknown.err())
        .contains(
            "bus replay: no bus consumer robin_feed; the projections are [system_echoes] and the"
                + " other consumers [system_echo]");
  }

  @Test
  void a_bad_configuration_is_refused_naming_the_key() throws Exception {
    Files.writeString(
        config, "database:\n  url: " + PG.jdbcUrl() + "\nconsumer:\n  batchSize: 0\n");

    CommandLine.Outcome bad = replay(SystemModule.ECHOES_DURABLE);

    assertThat(bad.succeeded()).isFalse();
    assertThat(bad.err()).contains("consumer.batchSize");
  }

  @Test
  void the_durable_is_required() {
    CommandLine.Outcome missing = CommandLine.run("bus", "replay");

    assertThat(missing.succeeded()).isFalse();
    assertThat(missing.err()).contains("durable");
  }
}
