package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.system.SystemModule;
import dev.bothy.system.app.Echoes;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code bus replay system_echoes} on the NATS transport: flow 00 in the {@code all} role with
 * {@code bus.nats.url}; the durable is created again and its projection rebuilt from the stream
 * equal to what it was, with no {@code bus.dispatch} job. About 10 s: the worker's pull on the
 * deleted durable is retried after {@code bus.consumers.fetchWait}, set to 1 s here.
 */
class BusReplayNatsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final long DEADLINE_NANOS = 30_000_000_000L;
  private static final String ECHOES =
      "SELECT ping_id || ' ' || pinged_event_id || ' ' || echo_event_id || ' ' || echo_seq || ' '"
          + " || echoed_at FROM system_echoes ORDER BY ping_id";

  private static Path dir;
  private static ApiApp app;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("bothy-replay-nats-");
    // A short fetchWait: a worker's pull on the deleted durable fails and is retried after it.
    app =
        ApiApp.start(
            PG,
            dir,
            "bus:\n  nats:\n    url: " + NATS.url() + "\n  consumers:\n    fetchWait: 1s\n");
  }

  @AfterAll
  static void stop() throws Exception {
    app.close();
  }

  private static long count(String sql) throws Exception {
    return PgExtension.scalar(PG.owner(), sql);
  }

  private static void await(String sql, long expected) throws Exception {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (count(sql) != expected) {
      assertThat(System.nanoTime()).as(sql + " reaches " + expected).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void replay_recreates_the_durable_and_rebuilds_the_projection_from_the_stream() throws Exception {
    for (int i = 0; i < 4; i++) {
      app.send(
          app.request("/v1/system/pings", ApiApp.ALEX_SYSTEM)
              .POST(HttpRequest.BodyPublishers.noBody())
              .build());
    }
    await("SELECT count(*) FROM system_echoes", 4);
    await("SELECT count(*) FROM event_deliveries WHERE handler = '" + Echoes.NAME + "'", 4);
    List<String> before = PgExtension.rows(PG.owner(), ECHOES);
    long head = count("SELECT max(seq) FROM event_log");
    Connection nc = Nats.connect(NATS.url());
    try {
      ZonedDateTime created =
          nc.jetStreamManagement()
              .getConsumerInfo("EVENTS", SystemModule.ECHOES_DURABLE)
              .getCreationTime();
      Path config = dir.resolve("replay.yml");
      Files.writeString(
          config,
          "database:\n  url: " + PG.jdbcUrl() + "\nbus:\n  nats:\n    url: " + NATS.url() + "\n");

      CommandLine.Outcome replayed =
          CommandLine.run("bus", "replay", SystemModule.ECHOES_DURABLE, config.toString());

      assertThat(replayed.succeeded()).as(replayed.err()).isTrue();
      assertThat(replayed.out())
          .contains("transport: NATS (bus.nats.url is set)")
          .contains("reset system_echoes: 4 rows of [system_echoes] and 4 delivery rows deleted")
          .contains("deleting the NATS durable system_echoes of EVENTS")
          .contains(
              "restarted system_echoes: the NATS durable system_echoes created again with deliver"
                  + " policy all")
          .contains("again from stream sequence 1 to " + head);
      await("SELECT count(*) FROM system_echoes", 4);
      await("SELECT count(*) FROM event_deliveries WHERE handler = '" + Echoes.NAME + "'", 4);
      assertThat(PgExtension.rows(PG.owner(), ECHOES)).isEqualTo(before);
      assertThat(
              nc.jetStreamManagement()
                  .getConsumerInfo("EVENTS", SystemModule.ECHOES_DURABLE)
                  .getCreationTime())
          .as("created again")
          .isAfter(created);
      assertThat(count("SELECT count(*) FROM jobs WHERE kind = 'bus.dispatch'")).isZero();
      assertThat(count("SELECT max(seq) FROM event_log")).isEqualTo(head);
    } finally {
      nc.close();
    }
  }
}
