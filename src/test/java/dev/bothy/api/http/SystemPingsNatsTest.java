package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.api.ConsumerInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flow 00 end to end on the NATS transport, in the {@code all} role with {@code bus.nats.url}: the
 * relay publishes {@code system.pinged} to {@code EVENTS}, the durable {@code system_echo} delivers
 * it to {@code system.echo}, and after the commit a core NATS message on {@code
 * bothy.live.system.echo} tells a listener; no {@code bus.dispatch} job and no cursor of the log
 * transport exist.
 */
class SystemPingsNatsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static Path dir;
  private static ApiApp app;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("bothy-pings-nats-");
    // Samples every second, so the console's history holds the durable soon.
    app =
        ApiApp.start(
            PG,
            dir,
            "bus:\n  nats:\n    url: " + NATS.url() + "\nconsole:\n  sampleInterval: 1s\n");
  }

  @AfterAll
  static void stop() throws Exception {
    app.stopAndSearchTheLogs();
  }

  @Test
  void a_ping_is_echoed_through_the_durable_and_a_live_hint_follows_the_commit() throws Exception {
    Connection listener = Nats.connect(NATS.url());
    try {
      Subscription live = listener.subscribe("bothy.live.system.echo");
      listener.flush(Duration.ofSeconds(5));

      HttpResponse<String> posted =
          app.send(
              app.request("/v1/system/pings", ApiApp.ALEX_SYSTEM)
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build());
      assertThat(posted.statusCode()).isEqualTo(201);
      String id = json(posted).get("id").asText();

      Message hint = live.nextMessage(WITHIN);
      assertThat(hint).as("a live hint on bothy.live.system.echo").isNotNull();
      assertThat(new String(hint.getData(), StandardCharsets.UTF_8))
          .isEqualTo(
              "{\"handler\":\"system.echo\",\"resource_type\":\"ping\",\"resource_id\":\""
                  + id
                  + "\"}");
      JsonNode ping = json(app.get("/v1/system/pings/" + id, ApiApp.ALEX_SYSTEM));
      assertThat(ping.get("status").asText())
          .as("the hint came after the commit")
          .isEqualTo("echoed");

      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT count(*)::text FROM jobs WHERE kind = 'bus.dispatch'"
                      + " UNION ALL SELECT count(*)::text FROM event_consumer_cursors"
                      + " WHERE name = 'bus'"
                      + " UNION ALL SELECT count(*)::text FROM event_deliveries"
                      + " WHERE handler = 'system.echo'"))
          .as("no job and no cursor of the log transport; one delivery row")
          .containsExactly("0", "0", "1");
      // The ack follows the commit and the hint, and is sent without waiting for the server: on a
      // busy machine it may still be on its way when the hint arrived (bounded wait).
      ConsumerInfo durable =
          listener.jetStreamManagement().getConsumerInfo("EVENTS", "system_echo");
      for (int i = 0; i < 100 && durable.getNumAckPending() > 0; i++) {
        Thread.sleep(50);
        durable = listener.jetStreamManagement().getConsumerInfo("EVENTS", "system_echo");
      }
      assertThat(durable.getNumAckPending()).isZero();
      assertThat(durable.getConsumerConfiguration().getMaxDeliver()).isEqualTo(10);
    } finally {
      listener.close();
    }
  }

  @Test
  void the_console_shows_the_durable_s_counts_and_their_history() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    JsonNode durable = null;
    JsonNode sampled = null;
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (System.nanoTime() < deadline && (durable == null || sampled == null)) {
      durable = find(consoleGet(client, "/console/api/overview").get("bus_consumers"));
      for (JsonNode sample : consoleGet(client, "/console/api/history").get("samples")) {
        JsonNode point = find(sample.get("bus_consumers"));
        sampled = point != null ? point : sampled;
      }
      Thread.sleep(200);
    }
    assertThat(durable).as("system_echo in the overview's bus_consumers").isNotNull();
    assertThat(durable.get("pending").asLong()).isNotNegative();
    assertThat(durable.get("ack_pending").asLong()).isNotNegative();
    assertThat(durable.get("redelivered").asLong()).isNotNegative();
    assertThat(sampled).as("system_echo in a history sample").isNotNull();
    assertThat(sampled.get("pending").asLong()).isNotNegative();
  }

  private static JsonNode find(JsonNode durables) {
    for (JsonNode d : durables) {
      if (d.get("durable").asText().equals("system_echo")) {
        return d;
      }
    }
    return null;
  }

  private static JsonNode consoleGet(HttpClient client, String path) throws Exception {
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.adminPort() + path))
                .header("Authorization", "Bearer " + ApiApp.ROBIN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return json(response);
  }

  @Test
  void the_durable_s_counts_are_gauges_on_the_admin_port() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + WITHIN.toNanos();
    List<String> lines = List.of();
    while (System.nanoTime() < deadline) {
      String text =
          client
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + app.adminPort() + "/prometheus"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      lines =
          text.lines()
              .filter(l -> l.startsWith("bothy_bus_consumer_"))
              .filter(l -> l.contains("bothy_bus_durable=\"system_echo\""))
              .toList();
      if (lines.size() == 3) {
        break;
      }
      Thread.sleep(100);
    }
    assertThat(lines)
        .extracting(l -> l.substring(0, l.indexOf('{')))
        .containsExactlyInAnyOrder(
            "bothy_bus_consumer_pending",
            "bothy_bus_consumer_ack_pending",
            "bothy_bus_consumer_redelivered");
  }
}
