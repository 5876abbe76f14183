package dev.bothy.api.http;

import dev.bothy.api.ApiToken;
import dev.bothy.api.Scope;
import dev.bothy.api.domain.TokenHash;
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
import java.util.OptionalInt;

/**
 * Authenticates every request to a route with {@link RequiresScope}: {@code Authorization: Bearer
 * <token>}, hashed and compared in constant time with {@code api.tokens}; {@code 401 unauthorized}
 * without a token or with an unknown one, {@code 403 forbidden} without the route's scope. The
 * token never reaches a log, a metric or a problem: only its configured name does, as the principal
 * of the request's {@link SecurityContext} (its roles are the scope codes).
 */
@Priority(Priorities.AUTHENTICATION)
public final class TokenFilter implements ContainerRequestFilter {
  private static final String BEARER = "Bearer ";

  private final List<ApiToken> tokens;
  private final List<byte[]> hashes;

  @Context private ResourceInfo resource;

  /**
   * Creates the filter.
   *
   * @param tokens {@code api.tokens}
   */
  public TokenFilter(List<ApiToken> tokens) {
    this.tokens = List.copyOf(tokens);
    this.hashes = this.tokens.stream().map(ApiToken::sha256).toList();
  }

  @Override
  public void filter(ContainerRequestContext request) {
    RequiresScope required =
        resource == null || resource.getResourceMethod() == null
            ? null
            : resource.getResourceMethod().getAnnotation(RequiresScope.class);
    if (required == null) {
      return;
    }
    // Whatever this filter refuses, the body stays unread (no 100 Continue for it, D-API-17).
    request.setProperty(DeclaredLengthFilter.BODY_NOT_READ, Boolean.TRUE);
    String header = authorization(request);
    if (!bearer(header)) {
      throw unauthorized("Send Authorization: Bearer <token> with a token of api.tokens.");
    }
    OptionalInt match = match(header);
    if (match.isEmpty()) {
      throw unauthorized("The token is not one of api.tokens.");
    }
    ApiToken token = tokens.get(match.getAsInt());
    if (!token.scopes().contains(required.value())) {
      throw ApiProblem.of(
          ProblemType.FORBIDDEN,
          "The token " + token.name() + " lacks the scope " + required.value().code() + ".");
    }
    request.removeProperty(DeclaredLengthFilter.BODY_NOT_READ);
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

  /**
   * The one {@code Authorization} header; two are refused as such, since the container joins them
   * with a comma into a value that matches no token and would be reported as an unknown token.
   */
  private static String authorization(ContainerRequestContext request) {
    java.util.List<String> values = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (values != null && values.size() > 1) {
      request.setProperty(DeclaredLengthFilter.BODY_NOT_READ, Boolean.TRUE);
      throw unauthorized("Send one Authorization header.");
    }
    return request.getHeaderString(HttpHeaders.AUTHORIZATION);
  }

  /**
   * Refuses a request without a token of {@code api.tokens}, whatever its scopes, with the same
   * {@code 401} as {@link #filter}: for the check before the route is matched, so a stranger gets
   * {@code 401} and not the route's {@code 404}, {@code 406} or {@code 415} (D-API-18).
   *
   * @param request the request
   * @throws ApiProblem {@code unauthorized}
   */
  void requireKnown(ContainerRequestContext request) {
    String header = authorization(request);
    if (!bearer(header)) {
      request.setProperty(DeclaredLengthFilter.BODY_NOT_READ, Boolean.TRUE);
      throw unauthorized("Send Authorization: Bearer <token> with a token of api.tokens.");
    }
    if (match(header).isEmpty()) {
      request.setProperty(DeclaredLengthFilter.BODY_NOT_READ, Boolean.TRUE);
      throw unauthorized("The token is not one of api.tokens.");
    }
  }

  /**
   * Whether the request carries a token of {@code api.tokens}, whatever its scopes: for checks that
   * run before the route is known and must not tell a stranger more than {@code 401} would.
   *
   * @param request the request
   * @return true for a known token
   */
  boolean knows(ContainerRequestContext request) {
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    return bearer(header) && match(header).isPresent();
  }

  private static boolean bearer(String header) {
    return header != null
        && header.length() > BEARER.length()
        && header.regionMatches(true, 0, BEARER, 0, BEARER.length());
  }

  private OptionalInt match(String header) {
    return TokenHash.match(header.substring(BEARER.length()).strip(), hashes);
  }

  private static ApiProblem unauthorized(String detail) {
    return ApiProblem.of(ProblemType.UNAUTHORIZED, detail)
        .withHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"bothy\"");
  }
}
