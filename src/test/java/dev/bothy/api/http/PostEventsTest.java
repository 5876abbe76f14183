package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.USER;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.event;
import static dev.bothy.wire.ApiApp.json;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.kernel.Ids;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/events}: what an append returns and writes, that a request is all or nothing, and
 * {@code Idempotency-Key} (a retry replays, another body conflicts, a burst appends once). Each
 * test measures from the head it found, so the order of tests does not matter.
 */
class PostEventsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void three_appended_events_get_201_consecutive_seqs_and_are_readable_through_get()
      throws Exception {
    long before = APP.app().head();
    HttpResponse<String> created =
        APP.app().post(body(settings("a"), settings("b"), settings("c")), ApiApp.ALEX, Map.of());

    assertThat(created.statusCode()).isEqualTo(201);
    // A plain response goes out whole, with its length; only event streams are sent as flushed.
    assertThat(created.headers().firstValueAsLong("Content-Length"))
        .hasValue(created.body().getBytes(StandardCharsets.UTF_8).length);
    JsonNode events = json(created).get("events");
    assertThat(events).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(i).get("seq").asLong()).isEqualTo(before + 1 + i);
    }
    HttpResponse<String> page = APP.app().get("/v1/events?after=" + before, ApiApp.SAM);
    assertThat(page.statusCode()).isEqualTo(200);
    JsonNode read = json(page);
    assertThat(read.get("next_after").asLong()).isEqualTo(before + 3);
    assertThat(read.get("events")).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode e = read.get("events").get(i);
      assertThat(e.get("id").asText()).isEqualTo(events.get(i).get("id").asText());
      assertThat(e.get("type").asText()).isEqualTo("settings.updated");
      assertThat(e.get("resource").get("id").asText()).isEqualTo(USER.toString());
      assertThat(e.get("actor").asText()).isEqualTo(USER.toString());
      assertThat(e.get("payload").get("changedKeys").get(0).asText())
          .isEqualTo(String.valueOf((char) ('a' + i)));
    }
  }

  @Test
  void a_request_whose_third_event_has_an_unknown_type_writes_nothing() throws Exception {
    long before = APP.app().head();
    HttpResponse<String> refused =
        APP.app()
            .post(
                body(settings("a"), settings("b"), event("settings.deleted", "user", "{}")),
                ApiApp.ALEX,
                Map.of());

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(json(refused).get("type").asText()).isEqualTo("unknown_event_type");
    assertThat(json(refused).get("pointer").asText()).isEqualTo("/events/2/type");
    assertThat(APP.app().head()).isEqualTo(before);
  }

  @Test
  void an_event_type_only_its_module_appends_is_refused_and_nothing_is_written() throws Exception {
    long before = APP.app().head();
    String forged = event("system.pinged", "ping", "{\"pingId\":\"" + Ids.newId() + "\"}");
    HttpResponse<String> refused =
        APP.app().post(body(settings("a"), forged), ApiApp.ALEX, Map.of());

    assertThat(refused.statusCode()).isEqualTo(400);
    JsonNode problem = json(refused);
    assertThat(problem.get("type").asText()).isEqualTo("invalid_request");
    assertThat(problem.get("pointer").asText()).isEqualTo("/events/1/type");
    assertThat(problem.get("detail").asText())
        .contains("system.pinged")
        .contains("by its module only")
        .contains("docs/reference/events.md");
    assertThat(APP.app().head()).isEqualTo(before);
  }

  @Test
  void an_idempotent_retry_gets_the_first_response_and_another_body_is_a_conflict()
      throws Exception {
    long before = APP.app().head();
    String key = "order-" + Ids.newId();
    HttpResponse<String> first =
        APP.app()
            .post(body(settings("a"), settings("b")), ApiApp.ALEX, Map.of("Idempotency-Key", key));
    HttpResponse<String> retry =
        APP.app()
            .post(body(settings("a"), settings("b")), ApiApp.ALEX, Map.of("Idempotency-Key", key));
    HttpResponse<String> other =
        APP.app().post(body(settings("c")), ApiApp.ALEX, Map.of("Idempotency-Key", key));

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(other.statusCode()).isEqualTo(409);
    assertThat(json(other).get("type").asText()).isEqualTo("idempotency_conflict");
    assertThat(APP.app().head()).isEqualTo(before + 2);

    // The same key from another token is another key.
    HttpResponse<String> samsOwn =
        APP.app()
            .post(body(settings("a"), settings("b")), ApiApp.SAM, Map.of("Idempotency-Key", key));
    assertThat(samsOwn.statusCode()).as("sam may not append at all").isEqualTo(403);
  }

  @Test
  void concurrent_requests_with_one_key_append_once_and_all_get_the_same_response()
      throws Exception {
    long before = APP.app().head();
    String key = "burst-" + Ids.newId();
    String request = body(settings("burst"));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(
            pool.submit(
                () -> APP.app().post(request, ApiApp.ALEX, Map.of("Idempotency-Key", key))));
      }
      List<String> bodies = new ArrayList<>();
      for (Future<HttpResponse<String>> f : answers) {
        HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(201);
        bodies.add(r.body());
      }
      assertThat(bodies).containsOnly(bodies.get(0));
    } finally {
      pool.shutdownNow();
    }
    assertThat(APP.app().head()).isEqualTo(before + 1);
  }

  @Test
  void a_gzip_body_is_inflated_and_appended_and_upper_case_uuids_are_the_same_uuid()
      throws Exception {
    long before = APP.app().head();
    String upper = body(settings("zipped")).replace(USER.toString(), USER.toString().toUpperCase());
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
      gzip.write(upper.getBytes(StandardCharsets.UTF_8));
    }
    HttpResponse<String> created =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/events", ApiApp.ALEX)
                    .header("Content-Type", "application/json")
                    .header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(zipped.toByteArray()))
                    .build());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode read = json(APP.app().get("/v1/events?after=" + before, ApiApp.SAM));
    JsonNode e = read.get("events").get(0);
    assertThat(e.get("payload").get("changedKeys").get(0).asText()).isEqualTo("zipped");
    assertThat(e.get("resource").get("id").asText()).isEqualTo(USER.toString());
  }
}
