package dev.bothy.kernel;

/**
 * The closed set of error kinds every module reports with; the HTTP layer maps them to status codes
 * and the logs show their {@link #code()}. {@link #retryable()} marks the kinds a later attempt of
 * the same work may get past: the bus's dispatch naks those and terms the rest (ADR 0025).
 */
public enum ErrorKind {
  /** The thing asked for does not exist. */
  NOT_FOUND("not_found", false),
  /** The input breaks a rule; retrying the same input fails the same way. */
  INVALID("invalid", false),
  /** The input clashes with the current state (a duplicate, a stale version). */
  CONFLICT("conflict", false),
  /**
   * A dependency (the database, a broker, an upstream service) cannot serve now; a later retry may
   * succeed.
   */
  UNAVAILABLE("unavailable", true),
  /** A broken invariant or a programming error inside Bothy. */
  INTERNAL("internal", false);

  private final String code;
  private final boolean retryable;

  ErrorKind(String code, boolean retryable) {
    this.code = code;
    this.retryable = retryable;
  }

  /**
   * Tells whether the same work may succeed when tried again later, with nothing changed: true for
   * a dependency that cannot serve now, false for a rule, a state or a bug that a retry meets
   * again.
   *
   * @return true for {@link #UNAVAILABLE} only
   */
  public boolean retryable() {
    return retryable;
  }

  /**
   * Returns the stable, lower-case code of this kind, as used in logs and problem responses.
   *
   * @return for example {@code "not_found"}
   */
  public String code() {
    return code;
  }
}
