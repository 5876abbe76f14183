package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.bus.BusEvent;
import dev.bothy.bus.Tx;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import dev.bothy.system.PingStatus;
import dev.bothy.system.Pinged;
import dev.bothy.system.SystemEvents;
import dev.bothy.system.adapters.postgres.JooqPingRepository;
import dev.bothy.system.app.Echo;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flow 00 end to end on the log transport, in the {@code all} role: {@code POST /v1/system/pings},
 * the worker consumer {@code bus}, a {@code bus.dispatch} job running the handler {@code
 * system.echo}, then {@code GET /v1/system/pings/{id}} showing {@code echoed}.
 */
class SystemPingsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  /** How long a ping may take to be echoed: a bound of the loop, never a wait of its own. */
  private static final long ECHO_DEADLINE_NANOS = 30_000_000_000L;

  private static HttpResponse<String> postPing(String token, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        APP.app().request("/v1/system/pings", token).POST(HttpRequest.BodyPublishers.noBody());
    headers.forEach(b::setHeader);
    return APP.app().send(b.build());
  }

  private static JsonNode awaitEchoed(String id) throws Exception {
    long deadline = System.nanoTime() + ECHO_DEADLINE_NANOS;
    while (true) {
      HttpResponse<String> got = APP.app().get("/v1/system/pings/" + id, ApiApp.ALEX_SYSTEM);
      assertThat(got.statusCode()).isEqualTo(200);
      JsonNode ping = json(got);
      if (ping.get("status").asText().equals("echoed")) {
        return ping;
      }
      assertThat(ping.get("status").asText()).isEqualTo("pinged");
      assertThat(System.nanoTime()).as("echoed within 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static List<JsonNode> eventsAbout(String id) throws Exception {
    List<JsonNode> found = new ArrayList<>();
    long after = 0;
    while (true) {
      JsonNode page = json(APP.app().get("/v1/events?after=" + after + "&limit=50", ApiApp.ALEX));
      for (JsonNode e : page.get("events")) {
        if (e.get("resource").get("id").asText().equals(id)) {
          found.add(e);
        }
      }
      long next = page.get("next_after").asLong();
      if (next == after) {
        return found;
      }
      after = next;
    }
  }

  @Test
  void a_ping_is_recorded_then_echoed_by_the_bus_handler_on_the_log_transport() throws Exception {
    HttpResponse<String> created = postPing(ApiApp.ALEX_SYSTEM, Map.of());

    assertThat(created.statusCode()).isEqualTo(201);
    String id = json(created).get("id").asText();
    assertThat(created.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("/v1/system/pings/" + id));
    JsonNode echoed = awaitEchoed(id);
    assertThat(echoed.get("id").asText()).isEqualTo(id);
    assertThat(echoed.get("pinged_at").asText()).endsWith("Z");
    assertThat(echoed.get("echoed_at").asText()).endsWith("Z");

    List<JsonNode> events = eventsAbout(id);
    assertThat(events)
        .extracting(e -> e.get("type").asText())
        .containsExactly("system.pinged", "system.echoed");
    assertThat(events.get(0).get("resource").get("type").asText()).isEqualTo("ping");
    assertThat(events.get(1).get("payload").get("pingedEventId").asText())
        .isEqualTo(events.get(0).get("id").asText());
  }

  @Test
  void a_second_run_of_the_echo_on_an_echoed_ping_changes_and_appends_nothing() throws Exception {
    String id = json(postPing(ApiApp.ALEX_SYSTEM, Map.of())).get("id").asText();
    JsonNode echoed = awaitEchoed(id);
    JooqPingRepository pings = new JooqPingRepository();
    List<EventDraft> appended = new ArrayList<>();
    List<ResourceRef> hinted = new ArrayList<>();
    Tx tx =
        new Tx() {
          @Override
          public List<UUID> append(EventDraft... drafts) {
            appended.addAll(List.of(drafts));
            return List.of();
          }

          @Override
          public void afterCommit(Runnable callback) {}

          @Override
          public void liveHint(ResourceRef resource) {
            hinted.add(resource);
          }

          @Override
          public String handler() {
            return Echo.NAME;
          }
        };
    UUID pingId = UUID.fromString(id);
    BusEvent<Pinged> redelivered =
        new BusEvent<>(
            UUID.randomUUID(),
            1,
            SystemEvents.PINGED.name(),
            Instant.now(),
            new ResourceRef(SystemEvents.PING, pingId),
            Optional.empty(),
            new Pinged(pingId));

    APP.app()
        .unitOfWork()
        .run(
            () -> {
              new Echo(pings).handle(tx, redelivered, Instant.now());
              return null;
            });

    assertThat(appended).isEmpty();
    assertThat(hinted).as("no live hint for a change that did not happen").isEmpty();
    assertThat(APP.app().unitOfWork().run(() -> pings.find(pingId)).orElseThrow().status())
        .isEqualTo(PingStatus.ECHOED);
    assertThat(json(APP.app().get("/v1/system/pings/" + id, ApiApp.ALEX_SYSTEM))).isEqualTo(echoed);
    assertThat(eventsAbout(id)).hasSize(2);
  }

  @Test
  void a_retry_with_the_same_idempotency_key_answers_the_first_ping_and_records_nothing()
      throws Exception {
    HttpResponse<String> first = postPing(ApiApp.ALEX_SYSTEM, Map.of("Idempotency-Key", "p-1"));
    HttpResponse<String> again = postPing(ApiApp.ALEX_SYSTEM, Map.of("Idempotency-Key", "p-1"));
    HttpResponse<String> other = postPing(ApiApp.ALEX_SYSTEM, Map.of("Idempotency-Key", "p-2"));

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(again.statusCode()).isEqualTo(201);
    String id = json(first).get("id").asText();
    assertThat(json(again).get("id").asText()).isEqualTo(id);
    assertThat(json(other).get("id").asText()).isNotEqualTo(id);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
    awaitEchoed(id);
    assertThat(eventsAbout(id))
        .extracting(e -> e.get("type").asText())
        .containsExactly("system.pinged", "system.echoed");
  }

  @Test
  void scopes_bodies_and_ids_are_checked_with_problems() throws Exception {
    HttpResponse<String> noScope = postPing(ApiApp.ALEX, Map.of());
    HttpResponse<String> noToken = APP.app().get("/v1/system/pings/" + UUID.randomUUID(), null);
    HttpResponse<String> unknown =
        APP.app().get("/v1/system/pings/" + UUID.randomUUID(), ApiApp.ALEX_SYSTEM);
    HttpResponse<String> badId = APP.app().get("/v1/system/pings/not-a-uuid", ApiApp.ALEX_SYSTEM);
    HttpResponse<String> withBody =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/system/pings", ApiApp.ALEX_SYSTEM)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"note\":\"x\"}"))
                    .build());

    assertThat(noScope.statusCode()).isEqualTo(403);
    assertThat(noToken.statusCode()).isEqualTo(401);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown).get("detail").asText()).isEqualTo("No ping has this id.");
    assertThat(badId.statusCode()).isEqualTo(400);
    assertThat(json(badId).get("parameter").asText()).isEqualTo("id");
    assertThat(withBody.statusCode()).isEqualTo(400);
    assertThat(json(withBody).get("detail").asText()).isEqualTo("This request takes no body.");
  }
}
