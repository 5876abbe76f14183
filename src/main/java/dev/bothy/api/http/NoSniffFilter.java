package dev.bothy.api.http;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;

/**
 * Sends {@code X-Content-Type-Options: nosniff} on every API answer: bodies repeat what clients
 * sent (payloads, names in problems), and a browser must take them as the declared type, never
 * guess HTML from them. The console's pages send it too (ADR 0022).
 */
final class NoSniffFilter implements ContainerResponseFilter {
  static final String HEADER = "X-Content-Type-Options";

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    response.getHeaders().putSingle(HEADER, "nosniff");
  }
}
