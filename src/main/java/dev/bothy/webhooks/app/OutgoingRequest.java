package dev.bothy.webhooks.app;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One webhook POST as the delivery job hands it to the {@link WebhookTransport}.
 *
 * <p>{@link #toString()} shows the header names only, never the signature or the body.
 *
 * @param target the subscription's URL
 * @param headers request headers, such as {@code webhook-id}, {@code webhook-timestamp}, {@code
 *     webhook-signature} and {@code content-type}; names are stored in lower case. {@code host},
 *     {@code content-length}, {@code transfer-encoding} and {@code connection} belong to the
 *     transport and are refused
 * @param body the exact bytes that were signed
 * @param timeout the whole attempt's limit, from the start of the connection to the last byte of
 *     the response read ({@code webhooks.requestTimeout})
 */
public record OutgoingRequest(
    URI target, Map<String, String> headers, byte[] body, Duration timeout) {

  /** Headers the transport sets itself. */
  public static final Set<String> TRANSPORT_HEADERS =
      Set.of("host", "content-length", "transfer-encoding", "connection");

  /** Checks the parts and copies the headers (lower-case names) and the body. */
  public OutgoingRequest {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(body, "body");
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("a webhook request's timeout must be positive");
    }
    TreeMap<String, String> lower = new TreeMap<>();
    Objects.requireNonNull(headers, "headers")
        .forEach(
            (name, value) -> {
              String key = name.toLowerCase(Locale.ROOT);
              if (TRANSPORT_HEADERS.contains(key)) {
                throw new IllegalArgumentException(
                    "the transport sets the header " + key + " itself");
              }
              lower.put(key, Objects.requireNonNull(value, "header value"));
            });
    headers = Map.copyOf(lower);
    body = body.clone();
  }

  /**
   * Returns a copy of the body.
   *
   * @return the bytes that were signed
   */
  @Override
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof OutgoingRequest that
        && target.equals(that.target)
        && headers.equals(that.headers)
        && java.util.Arrays.equals(body, that.body)
        && timeout.equals(that.timeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(target, headers, java.util.Arrays.hashCode(body), timeout);
  }

  /** Names the header names and the body's size; no values, no URL (its query may be a token). */
  @Override
  public String toString() {
    return "OutgoingRequest[headers="
        + new TreeMap<>(headers).keySet()
        + ", body="
        + body.length
        + " bytes, timeout="
        + timeout
        + "]";
  }
}
