package dev.bothy.api.http;

import static dev.bothy.api.http.BadRequest.get;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import dev.bothy.wire.RawHttp;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bearer tokens and their scopes on every route: a missing, guessed or non-bearer token is 401, a
 * token without the route's scope is 403, and neither answer nor log shows a token (the log search
 * runs after every API test class, see {@link ApiApp#stopAndSearchTheLogs()}).
 */
class TokensAndScopesTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  static Stream<BadRequest> refusedTokens() {
    String ok = settings("x");
    return Stream.of(
        new BadRequest(
            "no token",
            "POST",
            "/v1/events",
            null,
            "application/json",
            body(ok),
            Map.of(),
            401,
            "unauthorized",
            null),
        new BadRequest(
            "a wrong token",
            "POST",
            "/v1/events",
            "robin-token-guessed",
            "application/json",
            body(ok),
            Map.of(),
            401,
            "unauthorized",
            null),
        new BadRequest(
            "a basic scheme",
            "POST",
            "/v1/events",
            null,
            "application/json",
            body(ok),
            Map.of("Authorization", "Basic YWxleDpzZWNyZXQ="),
            401,
            "unauthorized",
            null),
        new BadRequest(
            "a token without events:append",
            "POST",
            "/v1/events",
            ApiApp.SAM,
            "application/json",
            body(ok),
            Map.of(),
            403,
            "forbidden",
            null),
        new BadRequest(
            "a token without events:read",
            "GET",
            "/v1/events",
            ApiApp.ROBIN,
            null,
            null,
            Map.of(),
            403,
            "forbidden",
            null),
        get("a read without a token", "/v1/events", null, 401, "unauthorized"),
        // Before the route's media types: a stranger learns nothing from a 415 or a 406.
        new BadRequest(
            "a stranger's body of another media type",
            "POST",
            "/v1/events",
            null,
            "text/plain",
            "x",
            Map.of(),
            401,
            "unauthorized",
            null),
        new BadRequest(
            "a stranger asking for HTML",
            "GET",
            "/v1/events",
            null,
            null,
            null,
            Map.of("Accept", "text/html"),
            401,
            "unauthorized",
            null),
        get(
            "a stranger on a path that is no route",
            "/v1/no-such-route",
            null,
            401,
            "unauthorized"),
        get("consumers without admin:read", "/v1/consumers", ApiApp.SAM, 403, "forbidden"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedTokens")
  void a_request_without_a_good_token_or_its_scope_gets_its_problem_and_writes_nothing(
      BadRequest bad) throws Exception {
    bad.sendAndCheck(APP.app());
  }

  /**
   * A refusal that comes before the body is read (the body's bytes are still on their way) leaves
   * bytes on the connection the server will not read, so the server closes it: the answer must say
   * {@code Connection: close}, or a client pools the connection and loses its next request on it.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadBodies")
  void a_refusal_before_the_body_arrives_says_the_connection_closes(
      String what, String authorization, int status) throws Exception {
    String request =
        "POST /v1/events HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: 64\r\n"
            + authorization
            + "\r\n";
    RawHttp.Answer answer = RawHttp.exchange(APP.app().port(), request);
    assertThat(answer.status()).as(what).isEqualTo(status);
    assertThat(answer.header("Connection")).as(what).hasValue("close");
  }

  static Stream<Arguments> unreadBodies() {
    return Stream.of(
        Arguments.of("no token", "", 401),
        Arguments.of("a wrong token", "Authorization: Bearer robin-token-guessed\r\n", 401),
        Arguments.of(
            "a token without the scope", "Authorization: Bearer " + ApiApp.SAM + "\r\n", 403));
  }

  /** Every answer, a refusal included, tells a browser not to guess its type. */
  @org.junit.jupiter.api.Test
  void every_answer_says_nosniff() throws Exception {
    for (String token : new String[] {ApiApp.SAM, null}) {
      java.net.http.HttpResponse<String> response = APP.app().get("/v1/events", token);
      assertThat(response.headers().firstValue("X-Content-Type-Options"))
          .as("token %s, status %d", token, response.statusCode())
          .hasValue("nosniff");
    }
  }

  /** The close is for unread bodies only: an append whose body was read keeps its connection. */
  @org.junit.jupiter.api.Test
  void an_accepted_request_whose_body_was_read_keeps_its_connection() throws Exception {
    byte[] body = body(settings("kept")).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String request =
        "POST /v1/events HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\n"
            + "Authorization: Bearer "
            + ApiApp.ALEX
            + "\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n\r\n"
            + new String(body, java.nio.charset.StandardCharsets.ISO_8859_1);
    RawHttp.Answer answer = RawHttp.exchange(APP.app().port(), request);
    assertThat(answer.status()).as(answer.body()).isEqualTo(201);
    assertThat(answer.header("Connection")).isEmpty();
  }
}
