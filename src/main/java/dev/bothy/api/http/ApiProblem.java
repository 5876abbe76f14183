package dev.bothy.api.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A problem the API answers with {@code application/problem+json} (RFC 9457): thrown anywhere in a
 * request, written by {@link ProblemMapper}. The detail says what to fix and never holds a token, a
 * stack trace or SQL.
 */
public final class ApiProblem extends RuntimeException {
  /**
   * The most characters of client input a problem repeats (a type name, a member name, a path);
   * longer input is cut here and ends with {@code ...}, so a problem never grows with the request.
   */
  public static final int MAX_ECHO_CHARS = 64;

  /**
   * The extension members a problem may carry, each in the OpenAPI {@code Problem} schema: a member
   * outside this list is refused, so the document cannot miss one the server sends.
   */
  public static final List<String> MEMBERS =
      List.of("pointer", "parameter", "header", "limit", "reason", "min_retained_seq");

  private static final long serialVersionUID = 1L;

  private final ProblemType type;
  private final Map<String, Object> extensions;
  private final Map<String, String> headers;

  private ApiProblem(
      ProblemType type,
      String detail,
      Map<String, Object> extensions,
      Map<String, String> headers) {
    super(detail, null, false, false);
    this.type = Objects.requireNonNull(type, "type");
    this.extensions = Map.copyOf(extensions);
    this.headers = Map.copyOf(headers);
  }

  /**
   * Creates a problem.
   *
   * @param type the type
   * @param detail what happened and what to do, for this occurrence
   * @return the problem
   */
  public static ApiProblem of(ProblemType type, String detail) {
    return new ApiProblem(type, detail, Map.of(), Map.of());
  }

  /**
   * Creates a problem about one field of the JSON body.
   *
   * @param type the type
   * @param pointer the JSON pointer (RFC 6901) of the field, such as {@code /events/2/type}
   * @param detail what is wrong
   * @return the problem, with the member {@code pointer}
   */
  public static ApiProblem at(ProblemType type, String pointer, String detail) {
    return new ApiProblem(type, detail, Map.of("pointer", pointer), Map.of());
  }

  /**
   * Cuts client input to {@link #MAX_ECHO_CHARS} characters for a problem to repeat it, never
   * between the two halves of a surrogate pair.
   *
   * @param input what the client sent
   * @return the input, or its first characters and {@code ...}
   */
  public static String echo(String input) {
    if (input.codePointCount(0, input.length()) <= MAX_ECHO_CHARS) {
      return input;
    }
    return input.substring(0, input.offsetByCodePoints(0, MAX_ECHO_CHARS)) + "...";
  }

  /**
   * Returns a copy with one more extension member.
   *
   * @param name the member name, one of {@link #MEMBERS}
   * @param value its value
   * @return the new problem
   * @throws IllegalArgumentException for a name outside {@link #MEMBERS}
   */
  public ApiProblem with(String name, Object value) {
    if (!MEMBERS.contains(name)) {
      throw new IllegalArgumentException(
          "the problem member " + name + " is not in ApiProblem.MEMBERS nor the Problem schema");
    }
    Map<String, Object> more = new LinkedHashMap<>(extensions);
    more.put(name, value);
    return new ApiProblem(type, getMessage(), more, headers);
  }

  /**
   * Returns a copy with one more response header.
   *
   * @param name the header
   * @param value its value
   * @return the new problem
   */
  public ApiProblem withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new ApiProblem(type, getMessage(), extensions, more);
  }

  /**
   * Returns the type.
   *
   * @return the type
   */
  public ProblemType type() {
    return type;
  }

  /**
   * Returns the extension members.
   *
   * @return the members, such as {@code pointer} or {@code min_retained_seq}
   */
  public Map<String, Object> extensions() {
    return extensions;
  }

  /**
   * Returns the extra response headers.
   *
   * @return the headers, such as {@code Retry-After}
   */
  public Map<String, String> headers() {
    return headers;
  }
}
