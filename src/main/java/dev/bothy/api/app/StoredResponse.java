package dev.bothy.api.app;

import java.time.Instant;
import java.util.Objects;

/**
 * The first response to an {@code Idempotency-Key}: one row of {@code api_idempotency_keys}.
 *
 * @param tokenName the token that sent it; keys are per token
 * @param key the {@code Idempotency-Key}
 * @param requestSha256 the SHA-256 of the request body, 32 bytes
 * @param status the HTTP status of the response
 * @param body the response body, replayed byte for byte
 * @param createdAt when the first request committed
 */
public record StoredResponse(
    String tokenName,
    String key,
    byte[] requestSha256,
    int status,
    String body,
    Instant createdAt) {
  /** Checks the fields. */
  public StoredResponse {
    Objects.requireNonNull(tokenName, "tokenName");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(requestSha256, "requestSha256");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(createdAt, "createdAt");
    requestSha256 = requestSha256.clone();
  }

  /**
   * Returns a copy of the body hash.
   *
   * @return 32 bytes
   */
  @Override
  public byte[] requestSha256() {
    return requestSha256.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof StoredResponse r
        && tokenName.equals(r.tokenName)
        && key.equals(r.key)
        && java.util.Arrays.equals(requestSha256, r.requestSha256)
        && status == r.status
        && body.equals(r.body)
        && createdAt.equals(r.createdAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tokenName, key, java.util.Arrays.hashCode(requestSha256), status, body);
  }
}
