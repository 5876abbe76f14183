package dev.bothy.api.http;

/**
 * The stable problem types of the API (RFC 9457 {@code type}, a relative URI reference): clients
 * branch on them, so a type is never renamed and a new error gets a new type.
 */
public enum ProblemType {
  /** The request is malformed: JSON, a field, a parameter or a header. */
  INVALID_REQUEST("invalid_request", 400, "The request is not valid"),
  /** An event names a type the catalogue does not hold. */
  UNKNOWN_EVENT_TYPE("unknown_event_type", 400, "Unknown event type"),
  /**
   * The body is over {@code api.maxRequestBytes} or a payload over {@code sync.maxPayloadBytes}.
   */
  PAYLOAD_TOO_LARGE("payload_too_large", 413, "Payload too large"),
  /** The asked position is below the retention window. */
  RESYNC_REQUIRED("resync_required", 410, "Resync required"),
  /** The idempotency key was used with another body. */
  IDEMPOTENCY_CONFLICT("idempotency_conflict", 409, "Idempotency key reused"),
  /** No token, or an unknown one. */
  UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
  /** The token lacks the route's scope. */
  FORBIDDEN("forbidden", 403, "Forbidden"),
  /** {@code api.maxStreams} streams are open. */
  TOO_MANY_STREAMS("too_many_streams", 503, "Too many streams"),
  /** No such route. */
  NOT_FOUND("not_found", 404, "Not found"),
  /** The route exists, the method does not. */
  METHOD_NOT_ALLOWED("method_not_allowed", 405, "Method not allowed"),
  /** The body is not {@code application/json}. */
  UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, "Unsupported media type"),
  /** The request URI is longer than the connector takes; Jetty answers it before routing. */
  URI_TOO_LONG("uri_too_long", 414, "URI too long"),
  /** The request's header fields are larger than the connector takes; Jetty answers it. */
  HEADERS_TOO_LARGE("headers_too_large", 431, "Request header fields too large"),
  /** The response type asked for in {@code Accept} is not offered. */
  NOT_ACCEPTABLE("not_acceptable", 406, "Not acceptable"),
  /** The database or another dependency is not reachable now; retry later. */
  UNAVAILABLE("unavailable", 503, "Service unavailable"),
  /** A bug: the server logged it. */
  INTERNAL("internal", 500, "Internal error"),
  /** A webhook target the network rules refuse; {@code reason} names the rule. */
  WEBHOOK_TARGET_REFUSED("webhook_target_refused", 400, "Webhook target refused"),
  /** A verb the webhook subscription's state does not allow, such as a resend while disabled. */
  WEBHOOK_STATE_CONFLICT("webhook_state_conflict", 409, "Webhook subscription state conflict");

  private final String code;
  private final int status;
  private final String title;

  ProblemType(String code, int status, String title) {
    this.code = code;
    this.status = status;
    this.title = title;
  }

  /**
   * The type of an error the server answers before a route runs, by its status.
   *
   * @param status the HTTP status
   * @return the type with that status; for a status no type has, {@link #INVALID_REQUEST} below 500
   *     and {@link #INTERNAL} from 500, and the document carries the real status
   */
  public static ProblemType forStatus(int status) {
    for (ProblemType type : values()) {
      // 503 has two types; the one that is not about streams fits an error before routing.
      if (type.status == status && type != TOO_MANY_STREAMS) {
        return type;
      }
    }
    return status < 500 ? INVALID_REQUEST : INTERNAL;
  }

  /**
   * Returns the {@code type} member.
   *
   * @return the code, such as {@code resync_required}
   */
  public String code() {
    return code;
  }

  /**
   * Returns the HTTP status.
   *
   * @return the status
   */
  public int status() {
    return status;
  }

  /**
   * Returns the {@code title} member: the same for every problem of the type.
   *
   * @return the title
   */
  public String title() {
    return title;
  }
}
