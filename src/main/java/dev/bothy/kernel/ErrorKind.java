package dev.bothy.kernel;

/**
 * The closed set of error kinds every module reports with; the HTTP layer maps them to status codes
 * and the logs show their {@link #code()}.
 */
public enum ErrorKind {
  /** The thing asked for does not exist. */
  NOT_FOUND("not_found"),
  /** The input breaks a rule; retrying the same input fails the same way. */
  INVALID("invalid"),
  /** The input clashes with the current state (a duplicate, a stale version). */
  CONFLICT("conflict"),
  /** A dependency (the database, a broker) cannot serve now; a later retry may succeed. */
  UNAVAILABLE("unavailable"),
  /** A broken invariant or a programming error inside Bothy. */
  INTERNAL("internal");

  private final String code;

  ErrorKind(String code) {
    this.code = code;
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
