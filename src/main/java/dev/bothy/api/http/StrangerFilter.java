package dev.bothy.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.Objects;

/**
 * Refuses a request under {@code /v1/} without a token of {@code api.tokens} before its route is
 * matched: Jersey answers a media type it cannot take ({@code 415}), one it cannot give ({@code
 * 406}) and a path that is no route ({@code 404}) while it matches, which told a stranger about the
 * routes before any token was asked for. Every route under {@code /v1/} needs a token; the scope is
 * {@link TokenFilter}'s check once the route is known. {@code /openapi.json} stays public.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
final class StrangerFilter implements ContainerRequestFilter {
  private static final String API = "v1/";

  private final TokenFilter tokens;

  /**
   * Creates the filter.
   *
   * @param tokens checks the token
   */
  StrangerFilter(TokenFilter tokens) {
    this.tokens = Objects.requireNonNull(tokens, "tokens");
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath(false);
    if (path.startsWith(API) || path.startsWith("/" + API)) {
      tokens.requireKnown(request);
    }
  }
}
