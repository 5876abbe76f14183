package dev.bothy.api.http;

import jakarta.ws.rs.core.HttpHeaders;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code Idempotency-Key} request header of every endpoint that makes retries safe: read once,
 * checked the same way, refused with the same problems.
 */
final class IdempotencyKeyHeader {
  static final String NAME = "Idempotency-Key";

  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

  private IdempotencyKeyHeader() {}

  /**
   * Reads the key of a request.
   *
   * @param headers the request's headers
   * @return the key, or empty when the request has none
   * @throws ApiProblem {@code invalid_request} when the header comes more than once (which one to
   *     honour would be a guess; a proxy adding its own key would make it a wrong one) or is not 1
   *     to 255 visible ASCII characters
   */
  static Optional<String> of(HttpHeaders headers) {
    List<String> keys = headers.getRequestHeader(NAME);
    if (keys == null || keys.isEmpty()) {
      return Optional.empty();
    }
    if (keys.size() > 1) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "Send Idempotency-Key once.")
          .with("header", NAME);
    }
    String key = keys.get(0);
    if (!KEY.matcher(key).matches()) {
      throw ApiProblem.of(
              ProblemType.INVALID_REQUEST,
              "Idempotency-Key must be 1 to 255 visible ASCII characters.")
          .with("header", NAME);
    }
    return Optional.of(key);
  }

  /**
   * The problem of a key used before with another request.
   *
   * @param what what differed, such as {@code "body"} or {@code "request"}
   * @return the {@code idempotency_conflict} problem naming the header
   */
  static ApiProblem conflict(String what) {
    return ApiProblem.of(
            ProblemType.IDEMPOTENCY_CONFLICT,
            "This Idempotency-Key was used with another "
                + what
                + "; use a new key for a new request.")
        .with("header", NAME);
  }
}
