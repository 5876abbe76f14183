/**
 * The HTTP API of the {@code api} and {@code all} roles: JAX-RS resources over the ports of {@code
 * sync}, bearer tokens with scopes, problem responses (RFC 9457) and the idempotency keys of {@code
 * POST /v1/events}.
 *
 * <p>The port is {@link dev.bothy.api.ApiModule}, which builds the resources and providers the
 * assembly registers with Jersey, plus the settings, tokens, scopes and metrics it takes. The
 * resources in {@code http} call only ports: no SQL and no transaction handling there.
 */
package dev.bothy.api;
