package dev.bothy.api.http;

import static dev.bothy.api.http.BadRequest.get;
import static dev.bothy.api.http.BadRequest.post;
import static dev.bothy.wire.ApiApp.USER;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.event;
import static dev.bothy.wire.ApiApp.settings;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.util.Collections;
import java.util.Map;
import java.util.stream.Stream;
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
        get("an unknown route", "/v1/nothing", ApiApp.ALEX, 404, "not_found"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void a_bad_request_gets_its_status_and_problem_type_and_writes_nothing(BadRequest bad)
      throws Exception {
    bad.sendAndCheck(APP.app());
  }
}
