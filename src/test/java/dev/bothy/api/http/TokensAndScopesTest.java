package dev.bothy.api.http;

import static dev.bothy.api.http.BadRequest.get;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.settings;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
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
        get("consumers without admin:read", "/v1/consumers", ApiApp.SAM, 403, "forbidden"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedTokens")
  void a_request_without_a_good_token_or_its_scope_gets_its_problem_and_writes_nothing(
      BadRequest bad) throws Exception {
    bad.sendAndCheck(APP.app());
  }
}
