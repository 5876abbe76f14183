package dev.bothy.api.http;

import static dev.bothy.api.http.BadRequest.get;
import static dev.bothy.api.http.BadRequest.post;
import static dev.bothy.wire.ApiApp.USER;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.event;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import dev.bothy.wire.RawHttp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests the API must refuse for what they carry or where they go (malformed or oversized bodies,
 * bad events, bad headers and query parameters, unknown methods and routes): each gets its status
 * and problem document and writes nothing. Refusals for a token or its scopes are in {@link
 * TokensAndScopesTest}.
 */
class BadRequestsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  static Stream<BadRequest> badRequests() {
    String ok = settings("x");
    String many = body(Collections.nCopies(11, ok).toArray(String[]::new));
    String big =
        body(event("settings.updated", "user", "{\"changedKeys\":[\"" + "k".repeat(600) + "\"]}"));
    String huge = body(Collections.nCopies(60, settings("y".repeat(120))).toArray(String[]::new));
    return Stream.of(
        post("malformed JSON", "{\"events\": [", 400, "invalid_request", null),
        post("a body that is an array", "[]", 400, "invalid_request", ""),
        post("an empty body", "", 400, "invalid_request", null),
        post("no events member", "{}", 400, "invalid_request", "/events"),
        post("events is an object", "{\"events\":{}}", 400, "invalid_request", "/events"),
        post("no event at all", "{\"events\":[]}", 400, "invalid_request", "/events"),
        post(
            "an unknown top member",
            "{\"events\":[" + ok + "],\"extra\":1}",
            400,
            "invalid_request",
            "/extra"),
        post("an event that is a number", "{\"events\":[1]}", 400, "invalid_request", "/events/0"),
        post(
            "no type",
            body("{\"resource\":{\"type\":\"user\",\"id\":\"" + USER + "\"},\"payload\":{}}"),
            400,
            "invalid_request",
            "/events/0/type"),
        post(
            "a type that is a number",
            body(ok.replace("\"settings.updated\"", "7")),
            400,
            "invalid_request",
            "/events/0/type"),
        post(
            "an unknown type",
            body(event("settings.removed", "user", "{}")),
            400,
            "unknown_event_type",
            "/events/0/type"),
        post(
            "no resource",
            body("{\"type\":\"settings.updated\",\"payload\":{\"changedKeys\":[]}}"),
            400,
            "invalid_request",
            "/events/0/resource"),
        post(
            "a resource that is a string",
            body(
                "{\"type\":\"settings.updated\",\"resource\":\"user\",\"payload\":{\"changedKeys\":[]}}"),
            400,
            "invalid_request",
            "/events/0/resource"),
        post(
            "a resource of the wrong type",
            body(event("settings.updated", "order", "{\"changedKeys\":[]}")),
            400,
            "invalid_request",
            "/events/0/resource/type"),
        post(
            "a resource id that is no UUID",
            body(ok.replace("\"id\":\"" + USER + "\"", "\"id\":\"user-7\"")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "no resource id",
            body(ok.replace(",\"id\":\"" + USER + "\"", "")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "an actor that is no UUID",
            body(ok.replace("\"actor\":\"" + USER + "\"", "\"actor\":42")),
            400,
            "invalid_request",
            "/events/0/actor"),
        post(
            "no payload",
            body(
                "{\"type\":\"settings.updated\",\"resource\":{\"type\":\"user\",\"id\":\""
                    + USER
                    + "\"}}"),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload that is an array",
            body(event("settings.updated", "user", "[]")),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload field of the wrong type",
            body(event("settings.updated", "user", "{\"changedKeys\":{\"a\":1}}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys"),
        post(
            "an unknown payload field",
            body(event("settings.updated", "user", "{\"changedKeys\":[],\"colour\":1}")),
            400,
            "invalid_request",
            "/events/0/payload/colour"),
        post(
            "a payload without its field",
            body(event("settings.updated", "user", "{}")),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload over sync.maxPayloadBytes",
            big,
            413,
            "payload_too_large",
            "/events/0/payload"),
        post("a body over api.maxRequestBytes", huge, 413, "payload_too_large", null),
        post("more events than api.maxEventsPerRequest", many, 400, "invalid_request", "/events"),
        post("trailing text after the JSON", body(ok) + " x", 400, "invalid_request", null),
        post(
            "a key twice in one object",
            "{\"events\":[" + ok + "],\"events\":[" + ok + "]}",
            400,
            "invalid_request",
            null),
        post(
            "U+0000 in a payload string",
            body(event("settings.updated", "user", "{\"changedKeys\":[\"a\\u0000b\"]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "U+0000 in a payload member name",
            body(event("settings.updated", "user", "{\"changedKeys\":[],\"k\\u0000\":1}")),
            400,
            "invalid_request",
            "/events/0/payload/k\u0000"),
        post(
            "U+0000 in the type",
            body(event("settings.updated\\u0000", "user", "{\"changedKeys\":[]}")),
            400,
            "invalid_request",
            "/events/0/type"),
        post(
            "U+0000 in the resource type",
            body(event("settings.updated", "user\\u0000", "{\"changedKeys\":[]}")),
            400,
            "invalid_request",
            "/events/0/resource/type"),
        post(
            "a lone high surrogate in a payload string",
            body(event("settings.updated", "user", "{\"changedKeys\":[\"a\\ud800\"]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "a lone low surrogate in a payload string",
            body(event("settings.updated", "user", "{\"changedKeys\":[\"\\udc00a\"]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "an escaped surrogate pair in an unknown member name (valid JSON)",
            "{\"events\":[" + ok + "],\"\\ud83c\\udf89\":1}",
            400,
            "invalid_request",
            "/\uD83C\uDF89"),
        post(
            "surrogates in the wrong order",
            body(event("settings.updated", "user", "{\"changedKeys\":[\"\\udc00\\ud800\"]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "a huge number where the payload wants a string",
            body(event("settings.updated", "user", "{\"changedKeys\":[1e400]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "an integer where the payload wants a string",
            body(event("settings.updated", "user", "{\"changedKeys\":[\"a\",7]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/1"),
        post(
            "a boolean where the payload wants a string",
            body(event("settings.updated", "user", "{\"changedKeys\":[true]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "a null where the payload wants a string",
            body(event("settings.updated", "user", "{\"changedKeys\":[null]}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys/0"),
        post(
            "a resource id with a leading plus",
            body(
                ok.replace(
                    "\"id\":\"" + USER + "\"", "\"id\":\"+" + USER.toString().substring(1) + "\"")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "a resource id with a plus inside a group",
            body(
                ok.replace(
                    "\"id\":\"" + USER + "\"",
                    "\"id\":\""
                        + USER.toString().substring(0, 9)
                        + "+"
                        + USER.toString().substring(10)
                        + "\"")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "an actor with a leading plus",
            body(
                ok.replace(
                    "\"actor\":\"" + USER + "\"",
                    "\"actor\":\"+" + USER.toString().substring(1) + "\"")),
            400,
            "invalid_request",
            "/events/0/actor"),
        post(
            "nesting deeper than api.maxJsonDepth",
            body(
                event(
                    "settings.updated",
                    "user",
                    "{\"changedKeys\":" + "[".repeat(200) + "]".repeat(200) + "}")),
            400,
            "invalid_request",
            null),
        new BadRequest(
            "Content-Encoding gzip on a body that is not gzip",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Content-Encoding", "gzip"),
            400,
            "invalid_request",
            null),
        new BadRequest(
            "an unsupported Content-Encoding",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Content-Encoding", "br"),
            415,
            "unsupported_media_type",
            null),
        new BadRequest(
            "an unknown Content-Encoding",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Content-Encoding", "x-rot13"),
            415,
            "unsupported_media_type",
            null),
        new BadRequest(
            "an unparsable Content-Type",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json; charset",
            body(ok),
            Map.of(),
            400,
            "invalid_request",
            null),
        post(
            "the second of two events is bad",
            body(ok, event("settings.updated", "user", "{\"changedKeys\":7}")),
            400,
            "invalid_request",
            "/events/1/payload/changedKeys"),
        new BadRequest(
            "a text body",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "text/plain",
            body(ok),
            Map.of(),
            415,
            "unsupported_media_type",
            null),
        new BadRequest(
            "an Idempotency-Key with a space",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Idempotency-Key", "a b"),
            400,
            "invalid_request",
            null),
        new BadRequest(
            "an Idempotency-Key too long",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Idempotency-Key", "k".repeat(256)),
            400,
            "invalid_request",
            null),
        get("a negative after", "/v1/events?after=-1", ApiApp.SAM, 400, "invalid_request"),
        get(
            "an after that is no number",
            "/v1/events?after=abc",
            ApiApp.SAM,
            400,
            "invalid_request"),
        get(
            "an after beyond a long",
            "/v1/events?after=99999999999999999999",
            ApiApp.SAM,
            400,
            "invalid_request"),
        get("a limit of zero", "/v1/events?limit=0", ApiApp.SAM, 400, "invalid_request"),
        get("a huge limit", "/v1/events?limit=99999999999", ApiApp.SAM, 400, "invalid_request"),
        get(
            "an unknown type filter",
            "/v1/events?type=settings.removed",
            ApiApp.SAM,
            400,
            "unknown_event_type"),
        new BadRequest(
            "a bad Last-Event-ID",
            "GET",
            "/v1/events/stream",
            ApiApp.SAM,
            null,
            null,
            Map.of("Last-Event-ID", "seven"),
            400,
            "invalid_request",
            null),
        get(
            "a negative stream after",
            "/v1/events/stream?after=-5",
            ApiApp.SAM,
            400,
            "invalid_request"),
        new BadRequest(
            "a DELETE",
            "DELETE",
            "/v1/events",
            ApiApp.ALEX,
            null,
            null,
            Map.of(),
            405,
            "method_not_allowed",
            null),
        new BadRequest(
            "a TRACE",
            "TRACE",
            "/v1/events",
            ApiApp.ALEX,
            null,
            null,
            Map.of(),
            405,
            "method_not_allowed",
            null),
        get("an unknown route", "/v1/nothing", ApiApp.ALEX, 404, "not_found"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void a_bad_request_gets_its_status_and_problem_type_and_writes_nothing(BadRequest bad)
      throws Exception {
    bad.sendAndCheck(APP.app());
  }

  /**
   * A request Jetty refuses before the application sees it, and the status it answers (the same as
   * before the problem documents: only the body and its type changed).
   */
  record RefusedByJetty(String name, String request, int status) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<RefusedByJetty> refusedByJetty() {
    String auth = "Authorization: Bearer " + ApiApp.SAM + "\r\n";
    return Stream.of(
        new RefusedByJetty(
            "an encoded dot-dot segment",
            "GET /v1/%2e%2e/openapi.json HTTP/1.1\r\nHost: a\r\n" + auth + "\r\n",
            400),
        new RefusedByJetty(
            "an encoded slash",
            "GET /v1/events%2Fstream HTTP/1.1\r\nHost: a\r\n" + auth + "\r\n",
            400),
        new RefusedByJetty(
            "a dot-dot above the root",
            "GET /../v1/events HTTP/1.1\r\nHost: a\r\n" + auth + "\r\n",
            400),
        new RefusedByJetty(
            "two Host headers",
            "GET /v1/events HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + auth + "\r\n",
            400),
        new RefusedByJetty(
            "two different Content-Length headers",
            "POST /v1/events HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nContent-Length: 3\r\n"
                + auth
                + "\r\n{}",
            400),
        new RefusedByJetty(
            "Content-Length and chunked together",
            "POST /v1/events HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"
                + auth
                + "\r\n2\r\n{}\r\n0\r\n\r\n",
            400),
        new RefusedByJetty(
            "a header too long",
            "GET /v1/events HTTP/1.1\r\nHost: a\r\nX-Long: "
                + "x".repeat(20_000)
                + "\r\n"
                + auth
                + "\r\n",
            431),
        new RefusedByJetty(
            "a URI too long",
            "GET /v1/events?type="
                + "x".repeat(20_000)
                + " HTTP/1.1\r\nHost: a\r\n"
                + auth
                + "\r\n",
            414),
        new RefusedByJetty(
            "a space in a header name",
            "GET /v1/events HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n" + auth + "\r\n",
            400),
        new RefusedByJetty(
            "a TRACE", "TRACE /v1/events HTTP/1.1\r\nHost: a\r\n" + auth + "\r\n", 405),
        new RefusedByJetty(
            "an unparsable Content-Type",
            "POST /v1/events HTTP/1.1\r\nHost: a\r\nContent-Type: ;;;\r\n"
                + "Content-Length: 2\r\n"
                + auth
                + "\r\n{}",
            400));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedByJetty")
  void a_request_jetty_refuses_gets_a_problem_document_with_its_status(RefusedByJetty refused)
      throws Exception {
    long before = APP.app().head();
    RawHttp.Answer answer = RawHttp.exchange(APP.app().port(), refused.request());

    assertThat(answer.status()).isEqualTo(refused.status());
    assertThat(answer.header("Content-Type")).hasValue("application/problem+json");
    assertThat(answer.header("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(answer.header("Server")).as("no server name or version").isEmpty();
    JsonNode problem = ApiApp.json(answer.body());
    assertThat(problem.get("status").asInt()).isEqualTo(refused.status());
    assertThat(problem.get("type").asText()).isNotBlank();
    assertThat(problem.get("title").asText()).isNotBlank();
    assertThat(problem.get("detail").asText()).isNotBlank();
    assertThat(answer.body())
        .doesNotContain("Exception")
        .doesNotContain("<html")
        .doesNotContain("xxxxxxxxxx")
        .doesNotContain(ApiApp.SAM);
    assertThat(APP.app().head()).isEqualTo(before);
    assertThat(APP.app().errorLines()).isEmpty();
  }

  @Test
  void a_duplicated_idempotency_key_is_refused() throws Exception {
    long before = APP.app().head();
    HttpResponse<String> response =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/events", ApiApp.ALEX)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", "key-1")
                    .header("Idempotency-Key", "key-2")
                    .POST(HttpRequest.BodyPublishers.ofString(body(settings("dup"))))
                    .build());
    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode problem = ApiApp.json(response);
    assertThat(problem.get("type").asText()).isEqualTo("invalid_request");
    assertThat(problem.get("header").asText()).isEqualTo("Idempotency-Key");
    assertThat(APP.app().head()).isEqualTo(before);
  }

  @Test
  void two_authorization_headers_are_refused_even_when_both_tokens_are_good() throws Exception {
    long before = APP.app().head();
    HttpResponse<String> response =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/events", ApiApp.SAM)
                    .header("Authorization", "Bearer " + ApiApp.ALEX)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body(settings("two"))))
                    .build());
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(ApiApp.json(response).get("type").asText()).isEqualTo("unauthorized");
    assertThat(ApiApp.json(response).get("detail").asText())
        .isEqualTo("Send one Authorization header.");
    assertThat(response.body()).doesNotContain(ApiApp.ALEX).doesNotContain(ApiApp.SAM);
    assertThat(APP.app().head()).isEqualTo(before);
  }

  @Test
  void a_query_parameter_given_twice_is_refused_unless_it_is_a_list() throws Exception {
    Map<String, String> tokens =
        Map.of(
            "/v1/events?after=0&limit=2&limit=3",
            ApiApp.SAM,
            "/v1/webhooks/subscriptions?limit=2&limit=3",
            ApiApp.ROBIN_WEBHOOKS);
    for (String path : tokens.keySet()) {
      HttpResponse<String> response = APP.app().get(path, tokens.get(path));
      assertThat(response.statusCode()).as(path).isEqualTo(400);
      JsonNode problem = ApiApp.json(response);
      assertThat(problem.get("parameter").asText()).as(path).isEqualTo("limit");
      assertThat(problem.get("detail").asText()).as(path).isEqualTo("Send limit once.");
    }
    // type is a list: each one adds a type to the filter.
    HttpResponse<String> types =
        APP.app().get("/v1/events?after=0&type=settings.updated&type=system.pinged", ApiApp.SAM);
    assertThat(types.statusCode()).as(types.body()).isEqualTo(200);
  }

  @Test
  void a_405_names_the_allowed_methods() throws Exception {
    HttpResponse<String> response =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/events", ApiApp.ALEX)
                    .method("DELETE", HttpRequest.BodyPublishers.noBody())
                    .build());
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow"))
        .hasValueSatisfying(
            allow ->
                assertThat(allow.split(",\\s*"))
                    .contains("GET", "HEAD", "POST")
                    .doesNotContain("DELETE")
                    .doesNotHaveDuplicates());
    HttpResponse<String> stream =
        APP.app()
            .send(
                APP.app()
                    .request("/v1/events/stream", ApiApp.SAM)
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build());
    assertThat(stream.statusCode()).isEqualTo(405);
    assertThat(stream.headers().firstValue("Allow"))
        .hasValueSatisfying(
            allow ->
                assertThat(allow.split(",\\s*"))
                    .contains("GET", "HEAD")
                    .doesNotContain("POST")
                    .doesNotHaveDuplicates());
  }

  @Test
  void an_empty_type_filter_and_numbers_past_a_long_say_what_is_wrong() throws Exception {
    HttpResponse<String> empty = APP.app().get("/v1/events?type=", ApiApp.SAM);
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(empty).get("type").asText()).isEqualTo("invalid_request");
    assertThat(ApiApp.json(empty).get("detail").asText())
        .isEqualTo("type must name an event type; leave it out for every type.")
        .doesNotContain("  ");

    for (String digits : java.util.List.of("9".repeat(20), "9".repeat(25), "1" + "0".repeat(40))) {
      HttpResponse<String> after = APP.app().get("/v1/events?after=" + digits, ApiApp.SAM);
      assertThat(after.statusCode()).as(digits).isEqualTo(400);
      assertThat(ApiApp.json(after).get("detail").asText())
          .as(digits)
          .isEqualTo("after is too large.");
      HttpResponse<String> header =
          APP.app().headRequest("/v1/events/stream", ApiApp.SAM, Map.of("Last-Event-ID", digits));
      assertThat(header.statusCode()).as(digits).isEqualTo(400);
    }
  }

  @Test
  void a_member_twice_in_one_object_is_named_as_such_with_its_place() throws Exception {
    HttpResponse<String> events =
        APP.app().post("{\"events\":[],\n \"events\":[]}", ApiApp.ALEX, Map.of());
    assertThat(events.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(events).get("detail").asText())
        .isEqualTo(
            "The body holds a member twice in one object, at line 2, column 10; each member may"
                + " appear once.");
    HttpResponse<String> webhooks =
        createSubscription(
            "{\"url\":\"https://hooks.example.com/a\",\"url\":\"https://hooks.example.com/b\"}");
    assertThat(webhooks.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(webhooks).get("detail").asText())
        .startsWith("The body holds a member twice in one object, at line 1, column ")
        .doesNotContain("example.com");
    HttpResponse<String> broken = createSubscription("{\n\"url\": }");
    assertThat(broken.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(broken).get("detail").asText())
        .startsWith("The body is not valid JSON at line 2, column ");
    HttpResponse<String> nul =
        createSubscription("{\"url\":\"https://hooks.example.com/a\\u0000\"}");
    assertThat(nul.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(nul).get("detail").asText())
        .isEqualTo("This string holds U+0000, which the database cannot store.");
    assertThat(ApiApp.json(nul).get("pointer").asText()).isEqualTo("/url");
  }

  private static HttpResponse<String> createSubscription(String body) throws Exception {
    return APP.app()
        .send(
            APP.app()
                .request("/v1/webhooks/subscriptions", ApiApp.ROBIN_WEBHOOKS)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
  }

  @Test
  void echoed_input_is_capped() throws Exception {
    String longType = "settings." + "z".repeat(5_000);
    HttpResponse<String> posted =
        APP.app().post(body(event(longType, "user", "{}")), ApiApp.ALEX, Map.of());
    assertThat(posted.statusCode()).isEqualTo(400);
    String detail = ApiApp.json(posted).get("detail").asText();
    assertThat(detail).contains("settings.zzz").contains("...").doesNotContain("z".repeat(200));
    assertThat(posted.body().length()).isLessThan(1_000);

    HttpResponse<String> filtered =
        APP.app().get("/v1/events?type=" + "q".repeat(2_000), ApiApp.SAM);
    assertThat(filtered.statusCode()).isEqualTo(400);
    assertThat(filtered.body()).doesNotContain("q".repeat(200)).contains("...");

    HttpResponse<String> member =
        APP.app()
            .post(
                "{\"events\":[" + settings("m") + "],\"" + "m".repeat(200) + "\":1}",
                ApiApp.ALEX,
                Map.of());
    assertThat(member.statusCode()).isEqualTo(400);
    assertThat(member.body()).doesNotContain("m".repeat(150));

    HttpResponse<String> path = APP.app().get("/v1/" + "p".repeat(2_000), ApiApp.SAM);
    assertThat(path.statusCode()).isEqualTo(404);
    assertThat(ApiApp.json(path).get("instance").asText())
        .startsWith("/v1/ppp")
        .endsWith("...")
        .hasSizeLessThan(80);
    assertThat(APP.app().errorLines()).isEmpty();
  }

  @Test
  void the_json_limits_name_their_configuration_keys() throws Exception {
    HttpResponse<String> deep =
        APP.app()
            .post(
                body(
                    event(
                        "settings.updated",
                        "user",
                        "{\"changedKeys\":" + "[".repeat(200) + "]".repeat(200) + "}")),
                ApiApp.ALEX,
                Map.of());
    assertThat(deep.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(deep).get("detail").asText())
        .contains("api.maxJsonDepth")
        .doesNotContain("line 0");
    assertThat(ApiApp.json(deep).get("limit").asText()).isEqualTo("api.maxJsonDepth");

    HttpResponse<String> longName =
        APP.app()
            .post(
                body(event("settings.updated", "user", "{\"" + "n".repeat(1_000) + "\":[]}")),
                ApiApp.ALEX,
                Map.of());
    assertThat(longName.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(longName).get("detail").asText())
        .contains("api.maxJsonNameLength")
        .doesNotContain("line 0");
    assertThat(ApiApp.json(longName).get("limit").asText()).isEqualTo("api.maxJsonNameLength");

    // The size and count limits name their keys the same way (api.maxRequestBytes is 8192,
    // api.maxEventsPerRequest 10 and sync.maxPayloadBytes 512 here).
    for (Map.Entry<Integer, String> over :
        Map.of(9_000, "api.maxRequestBytes", 600, "sync.maxPayloadBytes").entrySet()) {
      HttpResponse<String> big =
          APP.app()
              .post(
                  body(
                      event(
                          "settings.updated",
                          "user",
                          "{\"changedKeys\":[\"" + "k".repeat(over.getKey()) + "\"]}")),
                  ApiApp.ALEX,
                  Map.of());
      assertThat(big.statusCode()).as(over.getValue()).isEqualTo(413);
      assertThat(ApiApp.json(big).get("limit").asText()).isEqualTo(over.getValue());
    }
    String one = event("settings.updated", "user", "{\"changedKeys\":[]}");
    HttpResponse<String> many =
        APP.app()
            .post(
                "{\"events\":[" + String.join(",", java.util.Collections.nCopies(11, one)) + "]}",
                ApiApp.ALEX,
                Map.of());
    assertThat(many.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(many).get("limit").asText()).isEqualTo("api.maxEventsPerRequest");
    assertThat(APP.app().errorLines()).isEmpty();
  }

  @Test
  void a_declared_length_over_the_limit_is_refused_before_the_body_is_sent() throws Exception {
    // api.maxRequestBytes is 8192 here. A client that waits for 100 Continue sends nothing more:
    // the answer comes from the headers alone, and no byte of the body is asked for.
    for (Map.Entry<String, String> route :
        Map.of(
                "/v1/events", ApiApp.ALEX,
                "/v1/webhooks/subscriptions", ApiApp.ROBIN_WEBHOOKS,
                "/v1/system/pings", ApiApp.ALEX_SYSTEM)
            .entrySet()) {
      RawHttp.Answer answer =
          RawHttp.exchange(
              APP.app().port(),
              "POST "
                  + route.getKey()
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + route.getValue()
                  + "\r\nContent-Type: application/json\r\nContent-Length: 999999\r\n"
                  + "Expect: 100-continue\r\n\r\n");
      assertThat(answer.status()).as(route.getKey()).isEqualTo(413);
      JsonNode problem = ApiApp.json(answer.body());
      assertThat(problem.get("type").asText()).isEqualTo("payload_too_large");
      assertThat(problem.get("limit").asText()).isEqualTo("api.maxRequestBytes");
    }
    // Without a token the answer is still 401: the length tells nothing to a stranger.
    RawHttp.Answer stranger =
        RawHttp.exchange(
            APP.app().port(),
            "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 999999\r\nExpect: 100-continue\r\n\r\n");
    assertThat(stranger.status()).isEqualTo(401);
  }

  @Test
  void nothing_of_a_refused_payload_is_logged() throws Exception {
    String marker = "nul-marker-7c1e";
    HttpResponse<String> response =
        APP.app()
            .post(
                body(
                    event(
                        "settings.updated",
                        "user",
                        "{\"changedKeys\":[\"" + marker + "\\u0000\"]}")),
                ApiApp.ALEX,
                Map.of());
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(ApiApp.json(response).get("pointer").asText())
        .isEqualTo("/events/0/payload/changedKeys/0");
    assertThat(response.body()).doesNotContain(marker);
    assertThat(APP.app().loggedLines()).noneMatch(line -> line.contains(marker));
    assertThat(APP.app().errorLines()).isEmpty();
  }
}
