package dev.bothy.console.http;

import java.util.Map;
import java.util.Objects;

/**
 * An error of the console's API, answered as {@code application/problem+json} (RFC 9457) by {@link
 * ConsoleProblemMapper}. The detail says what to fix; it never holds a token, SQL or a stack trace.
 */
public final class ConsoleProblem extends RuntimeException {
  /** The most characters of client input a detail repeats. */
  static final int MAX_ECHO_CHARS = 64;

  private static final long serialVersionUID = 1L;

  /** The stable problem types: clients branch on {@link #code}, which is never renamed. */
  public enum Type {
    /** A parameter or the body is malformed. */
    INVALID_REQUEST("invalid_request", 400, "The request is not valid"),
    /** No token, or one that is not in {@code api.tokens}. */
    UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
    /** The token lacks {@code admin:read}, or {@code admin:write} for an action. */
    FORBIDDEN("forbidden", 403, "Forbidden"),
    /** {@code console.readOnly} is true: every action is refused, whatever the scopes. */
    READ_ONLY("read_only", 403, "The console is read-only"),
    /** No such route or job. */
    NOT_FOUND("not_found", 404, "Not found"),
    /** The route exists, the method does not. */
    METHOD_NOT_ALLOWED("method_not_allowed", 405, "Method not allowed"),
    /** The job's state does not allow the action. */
    CONFLICT("conflict", 409, "Conflict"),
    /** The body is not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, "Unsupported media type"),
    /** The database cannot answer now; retry later. */
    UNAVAILABLE("unavailable", 503, "Service unavailable"),
    /** A bug: the server logged it. */
    INTERNAL("internal", 500, "Internal error");

    private final String code;
    private final int status;
    private final String title;

    Type(String code, int status, String title) {
      this.code = code;
      this.status = status;
      this.title = title;
    }

    /**
     * Returns the {@code type} member.
     *
     * @return the code, such as {@code read_only}
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
     * Returns the {@code title} member, the same for every problem of the type.
     *
     * @return the title
     */
    public String title() {
      return title;
    }
  }

  private final Type type;
  private final Map<String, String> headers;

  private ConsoleProblem(Type type, String detail, Map<String, String> headers) {
    super(detail, null, false, false);
    this.type = Objects.requireNonNull(type, "type");
    this.headers = Map.copyOf(headers);
  }

  /**
   * Creates a problem.
   *
   * @param type the type
   * @param detail what happened and what to do
   * @return the problem
   */
  public static ConsoleProblem of(Type type, String detail) {
    return new ConsoleProblem(type, detail, Map.of());
  }

  /**
   * Returns a copy that adds a response header.
   *
   * @param name the header's name
   * @param value its value
   * @return the copy
   */
  ConsoleProblem withHeader(String name, String value) {
    Map<String, String> more = new java.util.HashMap<>(headers);
    more.put(name, value);
    return new ConsoleProblem(type, getMessage(), more);
  }

  /**
   * Returns the type.
   *
   * @return the type
   */
  public Type type() {
    return type;
  }

  /**
   * Returns the response headers the problem adds.
   *
   * @return the headers
   */
  Map<String, String> headers() {
    return headers;
  }

  /**
   * Cuts client input to {@link #MAX_ECHO_CHARS} characters, so a detail never grows with the
   * request.
   *
   * @param input the input
   * @return the input, or its start followed by {@code ...}
   */
  static String echo(String input) {
    return input.length() <= MAX_ECHO_CHARS ? input : input.substring(0, MAX_ECHO_CHARS) + "...";
  }
}
