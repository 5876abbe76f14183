package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /v1/webhooks/subscriptions} on a running {@code all} role: the verbs, the scope, the
 * problems, the secret shown only once, and a delivery to a receiver on loopback (allowed by {@code
 * webhooks.allowedNetworks: [127.0.0.0/8]} and {@code webhooks.allowPlainHttp}) whose body is the
 * event as {@code GET /v1/events} shows it, signed with the subscription's secret.
 */
class WebhooksApiTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          ApiApp.SMALL_SYNC_LIMITS
              + "webhooks:\n  allowedNetworks: [127.0.0.0/8]\n  allowPlainHttp: true\n"
              + "consumer:\n  pollInterval: 200ms\n");

  private static final String BASE = "/v1/webhooks/subscriptions";
  private static final List<Received> RECEIVED = Collections.synchronizedList(new ArrayList<>());
  private static final List<String> SECRETS = Collections.synchronizedList(new ArrayList<>());
  private static HttpServer receiver;

  record Received(Map<String, String> headers, byte[] body) {}

  @BeforeAll
  static void startReceiver() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          Map<String, String> headers = new java.util.HashMap<>();
          exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
          RECEIVED.add(new Received(headers, body));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.createContext(
        "/gone",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(410, -1);
          exchange.close();
        });
    receiver.start();
  }

  @AfterAll
  static void stopReceiver() {
    receiver.stop(0);
    List<String> lines = APP.app().loggedLines();
    // At least the line of the subscription a 410 disabled, so the search has lines to read.
    assertThat(lines).anyMatch(l -> l.contains("webhook subscription disabled"));
    for (String secret : SECRETS) {
      assertThat(lines).as("no log line carries a secret").noneMatch(l -> l.contains(secret));
    }
  }

  private static String hookUrl() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
  }

  private static HttpResponse<String> call(String method, String path, String body, String token)
      throws Exception {
    HttpRequest.Builder b = APP.app().request(path, token);
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return APP.app().send(b.build());
  }

  /**
   * The status of a request the server refuses before reading its body. The answer says {@code
   * Connection: close} (so the next request takes a new connection), but the server may close while
   * the client still writes the body: that one request is sent once more on a new connection
   * (refused requests change nothing, so a repeat is safe).
   */
  private static int refusedCall(String method, String path, String body, String token)
      throws Exception {
    try {
      return call(method, path, body, token).statusCode();
    } catch (java.io.IOException closed) {
      return call(method, path, body, token).statusCode();
    }
  }

  private static JsonNode created(String body) throws Exception {
    HttpResponse<String> response = call("POST", BASE, body, ApiApp.ROBIN_WEBHOOKS);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    JsonNode json = json(response);
    SECRETS.add(json.get("secret").asText());
    assertThat(response.headers().firstValue("Location"))
        .as("where the new subscription is")
        .hasValueSatisfying(
            l -> assertThat(l).endsWith(BASE + "/" + json.get("subscription").get("id").asText()));
    return json;
  }

  @Test
  void a_subscription_is_created_shown_changed_disabled_enabled_rotated_and_deleted()
      throws Exception {
    JsonNode created =
        created(
            "{\"url\":\""
                + hookUrl()
                + "\",\"event_types\":[\"settings.updated\"],"
                + "\"rate_limit\":7}");
    String secret = created.get("secret").asText();
    assertThat(secret).startsWith("whsec_");
    JsonNode sub = created.get("subscription");
    String id = sub.get("id").asText();
    assertThat(sub.get("state").asText()).isEqualTo("active");
    assertThat(sub.get("rate_limit").asInt()).isEqualTo(7);
    assertThat(sub.get("ordered").asBoolean()).isFalse();
    assertThat(sub.get("disabled_reason").isNull()).isTrue();

    HttpResponse<String> shown = call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(shown.statusCode()).isEqualTo(200);
    assertThat(shown.body()).doesNotContain(secret).doesNotContain("secret\"");
    // What a write answers is what a read shows afterwards, to the microsecond it stores.
    assertThat(json(shown)).as("created, then read").isEqualTo(sub);
    HttpResponse<String> listed = call("GET", BASE, null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(listed.body()).contains(id).doesNotContain(secret);

    HttpResponse<String> changed =
        call("PATCH", BASE + "/" + id, "{\"rate_limit\":3}", ApiApp.ROBIN_WEBHOOKS);
    assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
    assertThat(json(changed).get("rate_limit").asInt()).isEqualTo(3);
    assertThat(json(call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS)))
        .as("changed, then read")
        .isEqualTo(json(changed));
    // A change to what is already there changes nothing, updated_at included.
    for (String same : List.of("{}", "{\"rate_limit\":3,\"url\":\"" + hookUrl() + "\"}")) {
      HttpResponse<String> unchanged = call("PATCH", BASE + "/" + id, same, ApiApp.ROBIN_WEBHOOKS);
      assertThat(unchanged.statusCode()).as(same).isEqualTo(200);
      assertThat(json(unchanged)).as(same).isEqualTo(json(changed));
    }

    JsonNode disabled =
        json(call("POST", BASE + "/" + id + "/disable", null, ApiApp.ROBIN_WEBHOOKS));
    assertThat(disabled.get("state").asText()).isEqualTo("disabled");
    assertThat(disabled.get("disabled_reason").asText()).isEqualTo("manual");
    assertThat(json(call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS)))
        .as("disabled, then read")
        .isEqualTo(disabled);
    JsonNode enabled = json(call("POST", BASE + "/" + id + "/enable", null, ApiApp.ROBIN_WEBHOOKS));
    assertThat(enabled.get("state").asText()).isEqualTo("active");

    HttpResponse<String> rotated =
        call("POST", BASE + "/" + id + "/rotate-secret", null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(rotated.statusCode()).isEqualTo(200);
    String second = json(rotated).get("secret").asText();
    SECRETS.add(second);
    assertThat(second).startsWith("whsec_").isNotEqualTo(secret);
    assertThat(json(rotated).get("subscription").get("previous_secret_expires_at").asText())
        .endsWith("Z");
    assertThat(json(call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS)))
        .as("rotated, then read")
        .isEqualTo(json(rotated).get("subscription"));
    // A second rotation inside the window would stop the first secret signing at once, while a
    // receiver may still hold only it.
    HttpResponse<String> again =
        call("POST", BASE + "/" + id + "/rotate-secret", null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(json(again).get("type").asText()).isEqualTo("webhook_state_conflict");
    assertThat(json(again).get("detail").asText())
        .contains("previous_secret_expires_at")
        .contains("webhooks.secretRotationWindow")
        .doesNotContain("whsec_");
    assertThat(json(call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS)))
        .as("refused, nothing changed")
        .isEqualTo(json(rotated).get("subscription"));

    HttpResponse<String> attempts =
        call("GET", BASE + "/" + id + "/attempts", null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(attempts.statusCode()).isEqualTo(200);
    assertThat(json(attempts).get("attempts").isArray()).isTrue();

    assertThat(call("DELETE", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS).statusCode())
        .isEqualTo(204);
    HttpResponse<String> gone = call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(gone.statusCode()).isEqualTo(404);
    assertThat(json(gone).get("type").asText()).isEqualTo("not_found");
  }

  @Test
  void the_list_pages_end_with_a_full_page_whose_next_after_is_null() throws Exception {
    String body = "{\"url\":\"" + hookUrl() + "\",\"event_types\":[\"settings.updated\"]}";
    String first = created(body).get("subscription").get("id").asText();
    String second = created(body).get("subscription").get("id").asText();

    // Other tests of the class leave subscriptions too: walk the whole list one at a time.
    List<String> seen = new ArrayList<>();
    String after = null;
    for (int page = 0; page < 1_000; page++) {
      JsonNode json =
          json(
              call(
                  "GET",
                  BASE + "?limit=1" + (after == null ? "" : "&after=" + after),
                  null,
                  ApiApp.ROBIN_WEBHOOKS));
      // A client that follows next_after never asks for a page that turns out empty.
      assertThat(json.get("subscriptions")).as("page %d after %s", page, after).hasSize(1);
      seen.add(json.get("subscriptions").get(0).get("id").asText());
      if (json.get("next_after").isNull()) {
        break;
      }
      after = json.get("next_after").asText();
      assertThat(after).isEqualTo(seen.get(seen.size() - 1));
    }
    assertThat(seen).contains(first, second).doesNotHaveDuplicates();
    for (String id : List.of(first, second)) {
      assertThat(call("DELETE", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS).statusCode())
          .isEqualTo(204);
    }
  }

  @Test
  void a_committed_event_reaches_the_loopback_receiver_signed_and_shaped_like_the_api()
      throws Exception {
    JsonNode created =
        created("{\"url\":\"" + hookUrl() + "\",\"event_types\":[\"settings.updated\"]}");
    String id = created.get("subscription").get("id").asText();
    String secret = created.get("secret").asText();
    // The consumer's cursor passes the create point before the event is appended.
    long before = APP.app().head();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int seen = RECEIVED.size();
    HttpResponse<String> appended =
        APP.app().post(ApiApp.body(ApiApp.settings("locale")), ApiApp.ALEX, Map.of());
    assertThat(appended.statusCode()).isEqualTo(201);
    long seq = json(appended).get("events").get(0).get("seq").asLong();
    assertThat(seq).isGreaterThan(before);
    Received got = null;
    while (got == null && System.nanoTime() < deadline) {
      synchronized (RECEIVED) {
        for (Received r : RECEIVED.subList(seen, RECEIVED.size())) {
          if (json(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8))
                  .get("seq")
                  .asLong()
              == seq) {
            got = r;
          }
        }
      }
      if (got == null) {
        Thread.sleep(50);
      }
    }
    assertThat(got).as("delivered within 30 s").isNotNull();
    JsonNode page = json(APP.app().get("/v1/events?after=" + (seq - 1) + "&limit=1", ApiApp.SAM));
    assertThat(json(new String(got.body(), java.nio.charset.StandardCharsets.UTF_8)))
        .isEqualTo(page.get("events").get(0));
    assertThat(got.headers().get("webhook-id"))
        .isEqualTo(page.get("events").get(0).get("id").asText());
    assertThat(
            WebhookSignature.verify(
                got.headers().get("webhook-id"),
                Long.parseLong(got.headers().get("webhook-timestamp")),
                got.body(),
                got.headers().get("webhook-signature"),
                WebhookSecret.parse(secret)))
        .isTrue();

    JsonNode attempts = null;
    for (int i = 0; i < 100; i++) {
      attempts =
          json(call("GET", BASE + "/" + id + "/attempts?seq=" + seq, null, ApiApp.ROBIN_WEBHOOKS))
              .get("attempts");
      if (attempts.size() > 0) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("delivered");
    assertThat(attempts.get(0).get("response_status").asInt()).isEqualTo(204);

    // Two resends make three attempts of the event: read them two at a time, newest first.
    for (int i = 0; i < 2; i++) {
      assertThat(
              call(
                      "POST",
                      BASE + "/" + id + "/resend",
                      "{\"seq\":" + seq + "}",
                      ApiApp.ROBIN_WEBHOOKS)
                  .statusCode())
          .isEqualTo(202);
    }
    JsonNode all = null;
    for (int i = 0; i < 200; i++) {
      all =
          json(call("GET", BASE + "/" + id + "/attempts?seq=" + seq, null, ApiApp.ROBIN_WEBHOOKS));
      if (all.get("attempts").size() == 3) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(all.get("attempts")).hasSize(3);
    assertThat(all.get("next_before").isNull()).as("one page holds all").isTrue();
    JsonNode first =
        json(
            call(
                "GET",
                BASE + "/" + id + "/attempts?seq=" + seq + "&limit=2",
                null,
                ApiApp.ROBIN_WEBHOOKS));
    assertThat(first.get("attempts")).hasSize(2);
    String next = first.get("next_before").asText();
    JsonNode second =
        json(
            call(
                "GET",
                BASE
                    + "/"
                    + id
                    + "/attempts?seq="
                    + seq
                    + "&limit=2&before="
                    + java.net.URLEncoder.encode(next, java.nio.charset.StandardCharsets.UTF_8),
                null,
                ApiApp.ROBIN_WEBHOOKS));
    assertThat(second.get("attempts")).hasSize(1);
    assertThat(second.get("next_before").isNull()).isTrue();
    assertThat(
            List.of(
                first.get("attempts").get(0),
                first.get("attempts").get(1),
                second.get("attempts").get(0)))
        .as("the pages together, in order")
        .containsExactly(
            all.get("attempts").get(0), all.get("attempts").get(1), all.get("attempts").get(2));
    HttpResponse<String> badCursor =
        call("GET", BASE + "/" + id + "/attempts?before=robin", null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(badCursor.statusCode()).isEqualTo(400);
    assertThat(json(badCursor).get("parameter").asText()).isEqualTo("before");

    String prometheus = Http.get(APP.app().adminPort(), "/prometheus").body();
    assertThat(prometheus)
        .contains("bothy_webhooks_attempts_total{bothy_webhook_outcome=\"delivered\"}")
        .contains("bothy_webhooks_delivery_latency_seconds{quantile=\"0.99\"}")
        .containsPattern("(?m)^bothy_webhooks_receiver_busy_total [0-9.]+$")
        .containsPattern("bothy_webhooks_subscriptions\\{bothy_webhook_state=\"active\"} [1-9]")
        .contains("bothy_webhooks_subscriptions{bothy_webhook_state=\"failing\"} 0.0");
  }

  @Test
  void a_receiver_answering_410_disables_its_subscription_as_gone() throws Exception {
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/gone";
    JsonNode created = created("{\"url\":\"" + url + "\",\"event_types\":[\"settings.updated\"]}");
    String id = created.get("subscription").get("id").asText();
    APP.app().append(1);
    JsonNode shown = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      shown = json(call("GET", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS));
      if (shown.get("state").asText().equals("disabled")) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(shown.get("state").asText()).isEqualTo("disabled");
    assertThat(shown.get("disabled_reason").asText()).isEqualTo("gone");
    // The line is written after the commit that disabled it: wait for it, bounded.
    while (System.nanoTime() < deadline
        && APP.app().loggedLines().stream()
            .noneMatch(l -> l.contains("webhook subscription disabled") && l.contains(id))) {
      Thread.sleep(50);
    }
    assertThat(APP.app().loggedLines())
        .anyMatch(l -> l.contains("webhook subscription disabled") && l.contains("reason=gone"));
  }

  @Test
  void every_route_needs_the_webhooks_admin_scope() throws Exception {
    String any = "/00000000-0000-7000-8000-000000000000";
    List<String[]> routes =
        List.of(
            new String[] {"POST", BASE, "{}"},
            new String[] {"GET", BASE, null},
            new String[] {"GET", BASE + any, null},
            new String[] {"PATCH", BASE + any, "{}"},
            new String[] {"DELETE", BASE + any, null},
            new String[] {"POST", BASE + any + "/disable", null},
            new String[] {"POST", BASE + any + "/enable", null},
            new String[] {"POST", BASE + any + "/rotate-secret", null},
            new String[] {"POST", BASE + any + "/recover", "{\"from_seq\":1}"},
            new String[] {"POST", BASE + any + "/resend", "{\"seq\":1}"},
            new String[] {"GET", BASE + any + "/attempts", null});
    for (String[] r : routes) {
      for (String token : List.of(ApiApp.ALEX, ApiApp.SAM, ApiApp.ROBIN)) {
        assertThat(refusedCall(r[0], r[1], r[2], token)).as(r[0] + " " + r[1]).isEqualTo(403);
      }
      assertThat(refusedCall(r[0], r[1], r[2], null)).as(r[0] + " " + r[1]).isEqualTo(401);
      assertThat(call(r[0], r[1], r[2], ApiApp.ROBIN_WEBHOOKS).statusCode())
          .as(r[0] + " " + r[1] + " with the scope")
          .isNotIn(401, 403);
    }
  }

  @Test
  void a_target_the_network_rules_refuse_is_a_problem_that_does_not_echo_the_url()
      throws Exception {
    for (String url :
        List.of(
            "http://10.1.2.3/hook?token=abcdef",
            "http://192.0.2.7/hook?token=abcdef",
            "ftp://127.0.0.1/hook?token=abcdef")) {
      HttpResponse<String> refused =
          call(
              "POST",
              BASE,
              "{\"url\":\"" + url + "\",\"event_types\":[\"settings.updated\"]}",
              ApiApp.ROBIN_WEBHOOKS);
      assertThat(refused.statusCode()).as(url).isEqualTo(400);
      assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      JsonNode problem = json(refused);
      assertThat(problem.get("type").asText()).isEqualTo("webhook_target_refused");
      assertThat(problem.get("pointer").asText()).isEqualTo("/url");
      assertThat(problem.get("reason").asText()).isNotBlank();
      assertThat(refused.body()).doesNotContain("abcdef");
    }
  }

  @Test
  void event_types_are_a_set_repeats_and_order_change_nothing() throws Exception {
    // More copies of one type than webhooks.maxEventTypes (50): one type is stored.
    String many = String.join(",", java.util.Collections.nCopies(51, "\"settings.updated\""));
    JsonNode repeated = created("{\"url\":\"" + hookUrl() + "\",\"event_types\":[" + many + "]}");
    assertThat(repeated.get("subscription").get("event_types"))
        .extracting(JsonNode::asText)
        .containsExactly("settings.updated");

    JsonNode sub =
        created(
                "{\"url\":\""
                    + hookUrl()
                    + "\",\"event_types\":[\"settings.updated\",\"system.pinged\"]}")
            .get("subscription");
    HttpResponse<String> reordered =
        call(
            "PATCH",
            BASE + "/" + sub.get("id").asText(),
            "{\"event_types\":[\"system.pinged\",\"settings.updated\",\"system.pinged\"]}",
            ApiApp.ROBIN_WEBHOOKS);
    assertThat(reordered.statusCode()).as(reordered.body()).isEqualTo(200);
    assertThat(json(reordered)).as("the same set, updated_at included").isEqualTo(sub);
    // The receiver is shared: other tests' events must not reach it signed with these secrets.
    for (String id :
        List.of(repeated.get("subscription").get("id").asText(), sub.get("id").asText())) {
      assertThat(call("DELETE", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS).statusCode())
          .isEqualTo(204);
    }
  }

  @Test
  void bad_requests_are_problems_with_a_pointer_or_a_parameter() throws Exception {
    Map<String, String> bodies =
        Map.of(
            "{\"event_types\":[\"settings.updated\"]}",
            "/url",
            "{\"url\":\"" + hookUrl() + "\"}",
            "/event_types",
            "{\"url\":\"" + hookUrl() + "\",\"event_types\":[\"settings.updated\"],\"x\":1}",
            "/x",
            "{\"url\":7,\"event_types\":[\"settings.updated\"]}",
            "/url",
            "{\"url\":\""
                + hookUrl()
                + "\",\"event_types\":[\"settings.updated\"],\"ordered\":\"yes\"}",
            "/ordered",
            // Valid JSON, as Python's json.dumps writes a name outside the BMP: the unknown member.
            "{\"url\":\""
                + hookUrl()
                + "\",\"event_types\":[\"settings.updated\"],\"\\ud83c\\udf89\":1}",
            "/\uD83C\uDF89");
    for (Map.Entry<String, String> b : bodies.entrySet()) {
      HttpResponse<String> response = call("POST", BASE, b.getKey(), ApiApp.ROBIN_WEBHOOKS);
      assertThat(response.statusCode()).as(b.getKey()).isEqualTo(400);
      assertThat(json(response).get("pointer").asText()).as(b.getKey()).isEqualTo(b.getValue());
    }
    HttpResponse<String> unknownType =
        call(
            "POST",
            BASE,
            "{\"url\":\"" + hookUrl() + "\",\"event_types\":[\"no.such.type\"]}",
            ApiApp.ROBIN_WEBHOOKS);
    assertThat(unknownType.statusCode()).isEqualTo(400);
    assertThat(json(unknownType).get("type").asText()).isEqualTo("unknown_event_type");
    assertThat(json(unknownType).get("pointer").asText()).isEqualTo("/event_types/0");
    HttpResponse<String> rateTooHigh =
        call(
            "POST",
            BASE,
            "{\"url\":\""
                + hookUrl()
                + "\",\"event_types\":[\"settings.updated\"],\"rate_limit\":999999999}",
            ApiApp.ROBIN_WEBHOOKS);
    assertThat(rateTooHigh.statusCode()).isEqualTo(400);
    assertThat(json(rateTooHigh).get("pointer").asText()).isEqualTo("/rate_limit");
    HttpResponse<String> notUuid = call("GET", BASE + "/not-a-uuid", null, ApiApp.ROBIN_WEBHOOKS);
    assertThat(notUuid.statusCode()).isEqualTo(400);
    assertThat(json(notUuid).get("parameter").asText()).isEqualTo("id");

    JsonNode created =
        created("{\"url\":\"" + hookUrl() + "\",\"event_types\":[\"settings.updated\"]}");
    String id = created.get("subscription").get("id").asText();
    HttpResponse<String> farRecover =
        call(
            "POST",
            BASE + "/" + id + "/recover",
            "{\"from_seq\":999999999}",
            ApiApp.ROBIN_WEBHOOKS);
    assertThat(farRecover.statusCode()).isEqualTo(400);
    assertThat(json(farRecover).get("pointer").asText()).isEqualTo("/from_seq");
    HttpResponse<String> badResend =
        call("POST", BASE + "/" + id + "/resend", "{\"seq\":0}", ApiApp.ROBIN_WEBHOOKS);
    assertThat(badResend.statusCode()).isEqualTo(400);
    assertThat(json(badResend).get("pointer").asText()).isEqualTo("/seq");
    for (String verb : new String[] {"disable", "enable", "rotate-secret"}) {
      HttpResponse<String> withBody =
          call("POST", BASE + "/" + id + "/" + verb, "{\"x\":1}", ApiApp.ROBIN_WEBHOOKS);
      assertThat(withBody.statusCode()).as(verb).isEqualTo(400);
      assertThat(json(withBody).get("detail").asText()).as(verb).contains("takes no body");
    }
    call("POST", BASE + "/" + id + "/disable", null, ApiApp.ROBIN_WEBHOOKS);
    APP.app().append(1);
    HttpResponse<String> resendDisabled =
        call(
            "POST",
            BASE + "/" + id + "/resend",
            "{\"seq\":" + APP.app().head() + "}",
            ApiApp.ROBIN_WEBHOOKS);
    assertThat(resendDisabled.statusCode()).isEqualTo(409);
    assertThat(json(resendDisabled).get("type").asText()).isEqualTo("webhook_state_conflict");
    call("DELETE", BASE + "/" + id, null, ApiApp.ROBIN_WEBHOOKS);
  }
}
