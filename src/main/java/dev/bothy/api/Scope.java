package dev.bothy.api;

import java.util.Arrays;
import java.util.Optional;

/** What a bearer token may do; each route needs one scope. */
public enum Scope {
  /** Append events: {@code POST /v1/events}. */
  EVENTS_APPEND("events:append"),
  /** Read and stream events: {@code GET /v1/events}, {@code GET /v1/events/stream}. */
  EVENTS_READ("events:read"),
  /** Read operational state: {@code GET /v1/consumers} and the operator console. */
  ADMIN_READ("admin:read"),
  /**
   * Act in the operator console ({@code POST /console/api/...}: retry or cancel jobs); refused
   * whatever the scope while {@code console.readOnly} is true.
   */
  ADMIN_WRITE("admin:write"),
  /**
   * Manage outgoing webhook subscriptions under {@code /v1/webhooks/subscriptions}, their secrets
   * included.
   */
  WEBHOOKS_ADMIN("webhooks:admin"),
  /** Record a ping of flow 00: {@code POST /v1/system/pings}. */
  SYSTEM_WRITE("system:write"),
  /** Read a ping of flow 00: {@code GET /v1/system/pings/{id}}. */
  SYSTEM_READ("system:read");

  private final String code;

  Scope(String code) {
    this.code = code;
  }

  /**
   * Returns the scope's code as written in {@code api.tokens}.
   *
   * @return the code, such as {@code events:append}
   */
  public String code() {
    return code;
  }

  /**
   * Finds a scope by its code.
   *
   * @param code the code
   * @return the scope, or empty for an unknown code
   */
  public static Optional<Scope> fromCode(String code) {
    return Arrays.stream(values()).filter(s -> s.code.equals(code)).findFirst();
  }
}
