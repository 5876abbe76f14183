package dev.bothy.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import java.util.Objects;

/**
 * Refuses a request whose {@code Content-Length} is over {@code api.maxRequestBytes} from its
 * headers alone: {@code 413 payload_too_large} with {@code limit}, before any byte of the body is
 * read, so a client that sent {@code Expect: 100-continue} is never asked for the body and one that
 * did not declare it does not wait for the upload's end. Before the route is matched, since Jersey
 * peeks at the body while it matches a route that declares {@code @Consumes}, and Jetty answers
 * {@code 100 Continue} at that first read; so it refuses only a request with a known token, and a
 * stranger still gets {@code 401} from {@link TokenFilter}. A body with a {@code Content-Encoding}
 * is left to the reading, which counts the decoded bytes: a compressed length says little about
 * what it inflates to. A body without a length (chunked) is counted while it is read.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public final class DeclaredLengthFilter implements ContainerRequestFilter {
  /**
   * The request property set on a request refused here: its body was not read, and asking the
   * stream whether it was would make Jetty answer {@code 100 Continue} first.
   */
  public static final String BODY_NOT_READ = "bothy.body.notRead";

  private final TokenFilter tokens;
  private final AppendRequestReader reader;
  private final int maxRequestBytes;

  /**
   * Creates the filter.
   *
   * @param tokens tells a known token
   * @param reader gives the problem of a body over the limit, the same the reading gives
   * @param maxRequestBytes {@code api.maxRequestBytes}
   */
  DeclaredLengthFilter(TokenFilter tokens, AppendRequestReader reader, int maxRequestBytes) {
    this.tokens = Objects.requireNonNull(tokens, "tokens");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String encoding = request.getHeaderString(HttpHeaders.CONTENT_ENCODING);
    boolean plain =
        encoding == null || encoding.isBlank() || encoding.strip().equalsIgnoreCase("identity");
    if (plain
        && declared(request.getHeaderString(HttpHeaders.CONTENT_LENGTH)) > maxRequestBytes
        && tokens.knows(request)) {
      request.setProperty(BODY_NOT_READ, Boolean.TRUE);
      throw reader.tooLarge();
    }
  }

  /**
   * The declared length, or -1 without one. Read here rather than through {@code getLength()},
   * which gives -1 for a length past an {@code int}, the very lengths to refuse; Jetty answers a
   * malformed one with 400 before any filter.
   */
  private static long declared(String header) {
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
