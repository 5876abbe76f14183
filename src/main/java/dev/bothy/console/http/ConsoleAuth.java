package dev.bothy.console.http;

import dev.bothy.api.ApiToken;
import dev.bothy.api.Scope;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.List;
import java.util.Optional;

/**
 * Authenticates every request to a console route: {@code Authorization: Bearer <token>} with a
 * token of {@code api.tokens}, compared in constant time; a cookie or a query parameter is never
 * read, so a request another site makes the browser send carries no credential (no CSRF by design).
 *
 * <p>In this order: {@code 401 unauthorized} without a token or with an unknown one; {@code 403
 * forbidden} without {@code admin:read}; for a route marked {@link Acts}, {@code 403 read_only}
 * while {@code console.readOnly} is true (whatever the scopes), then {@code 403 forbidden} without
 * {@code admin:write}. The token never reaches a log or a problem: its configured name does, as the
 * principal of the request.
 */
@Priority(Priorities.AUTHENTICATION)
public final class ConsoleAuth implements ContainerRequestFilter {
  private static final String BEARER = "Bearer ";

  private final List<ApiToken> tokens;
  private final boolean readOnly;

  @Context private ResourceInfo resource;

  ConsoleAuth(List<ApiToken> tokens, boolean readOnly) {
    this.tokens = List.copyOf(tokens);
    this.readOnly = readOnly;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    if (header == null
        || header.length() <= BEARER.length()
        || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw unauthorized("Send Authorization: Bearer <token> with a token of api.tokens.");
    }
    Optional<ApiToken> match = ApiToken.match(header.substring(BEARER.length()).strip(), tokens);
    if (match.isEmpty()) {
      throw unauthorized("The token is not one of api.tokens.");
    }
    ApiToken token = match.get();
    if (!token.scopes().contains(Scope.ADMIN_READ)) {
      throw lacks(token, Scope.ADMIN_READ);
    }
    boolean acts =
        resource != null
            && resource.getResourceMethod() != null
            && resource.getResourceMethod().isAnnotationPresent(Acts.class);
    if (acts && readOnly) {
      throw ConsoleProblem.of(
          ConsoleProblem.Type.READ_ONLY,
          "console.readOnly is true: the console refuses every action.");
    }
    if (acts && !token.scopes().contains(Scope.ADMIN_WRITE)) {
      throw lacks(token, Scope.ADMIN_WRITE);
    }
    SecurityContext original = request.getSecurityContext();
    request.setSecurityContext(
        new SecurityContext() {
          @Override
          public Principal getUserPrincipal() {
            return token::name;
          }

          @Override
          public boolean isUserInRole(String role) {
            return Scope.fromCode(role).map(token.scopes()::contains).orElse(false);
          }

          @Override
          public boolean isSecure() {
            return original.isSecure();
          }

          @Override
          public String getAuthenticationScheme() {
            return "Bearer";
          }
        });
  }

  private static ConsoleProblem lacks(ApiToken token, Scope scope) {
    return ConsoleProblem.of(
        ConsoleProblem.Type.FORBIDDEN,
        "The token " + token.name() + " lacks the scope " + scope.code() + ".");
  }

  private static ConsoleProblem unauthorized(String detail) {
    return ConsoleProblem.of(ConsoleProblem.Type.UNAUTHORIZED, detail)
        .withHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"bothy-console\"");
  }
}
