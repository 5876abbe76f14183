package dev.bothy.webhooks.app;

import dev.bothy.webhooks.domain.AttemptOutcome;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one webhook POST came back with: a response, or the kind of error that kept it from coming.
 * Judged by {@code DeliveryVerdict.classify} and recorded as an attempt.
 *
 * @param status the HTTP status, 0 when no response arrived
 * @param responseHeaders the response headers the delivery needs (at least {@code retry-after} when
 *     sent), names in lower case
 * @param bodyExcerpt the start of the response body, at most the transport's {@code
 *     webhooks.maxResponseBodyChars} characters; empty when there was none. A U+0000 in it becomes
 *     U+FFFD, as malformed input does: the attempt keeps the excerpt in a PostgreSQL {@code text}
 *     column, which refuses U+0000 (SQLSTATE 22021), and a refused attempt would send a delivered
 *     event again and never disable on a 410.
 * @param elapsed from the start of the attempt to its end
 * @param errorKind empty with a response; otherwise one of {@link #ERROR_KINDS}
 */
public record SendResult(
    int status,
    Map<String, String> responseHeaders,
    String bodyExcerpt,
    Duration elapsed,
    Optional<String> errorKind)
    implements AttemptOutcome {

  /** The target was refused by the network rules (at resolution or by its form). */
  public static final String REFUSED_ADDRESS = "refused_address";

  /** The host did not resolve. */
  public static final String DNS = "dns";

  /** The connection was refused or unreachable. */
  public static final String CONNECT = "connect";

  /** The attempt ran past its timeout (connecting, waiting or reading). */
  public static final String TIMEOUT = "timeout";

  /** The TLS handshake failed (certificate, host name, protocol). */
  public static final String TLS = "tls";

  /** Any other input or output error. */
  public static final String IO = "io";

  /** Every error kind a transport may report. */
  public static final Set<String> ERROR_KINDS =
      Set.of(REFUSED_ADDRESS, DNS, CONNECT, TIMEOUT, TLS, IO);

  /** Checks that a result is either a response or an error of a known kind. */
  public SendResult {
    Objects.requireNonNull(errorKind, "errorKind");
    Objects.requireNonNull(elapsed, "elapsed");
    bodyExcerpt = Objects.requireNonNull(bodyExcerpt, "bodyExcerpt").replace('\u0000', '\uFFFD');
    if (errorKind.isPresent() != (status == 0)) {
      throw new IllegalArgumentException("a send result has a status or an error kind, not both");
    }
    if (status != 0 && (status < 100 || status > 599)) {
      throw new IllegalArgumentException("an HTTP status lies from 100 to 599");
    }
    errorKind.ifPresent(
        kind -> {
          if (!ERROR_KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown error kind " + kind);
          }
        });
    TreeMap<String, String> lower = new TreeMap<>();
    Objects.requireNonNull(responseHeaders, "responseHeaders")
        .forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
    responseHeaders = Map.copyOf(lower);
  }

  /**
   * Returns the result of an attempt that got a response.
   *
   * @param status the HTTP status
   * @param responseHeaders the headers kept
   * @param bodyExcerpt the start of the body
   * @param elapsed how long it took
   * @return the result
   */
  public static SendResult response(
      int status, Map<String, String> responseHeaders, String bodyExcerpt, Duration elapsed) {
    return new SendResult(status, responseHeaders, bodyExcerpt, elapsed, Optional.empty());
  }

  /**
   * Returns the result of an attempt that got no response.
   *
   * @param errorKind one of {@link #ERROR_KINDS}
   * @param elapsed how long it took
   * @return the result
   */
  public static SendResult error(String errorKind, Duration elapsed) {
    return new SendResult(0, Map.of(), "", elapsed, Optional.of(errorKind));
  }

  /** Shows status, kind and time; not the body excerpt, which is the receiver's data. */
  @Override
  public String toString() {
    return "SendResult[status="
        + status
        + ", errorKind="
        + errorKind.orElse("none")
        + ", elapsed="
        + elapsed
        + ", bodyExcerpt="
        + bodyExcerpt.length()
        + " chars]";
  }
}
