package dev.bothy.wire;

import dev.bothy.api.http.DeclaredLengthFilter;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import java.io.IOException;

/**
 * Says {@code Connection: close} on every answer to a request whose body was not read to its end,
 * such as a refusal of the token filters, which answer before the body is read so a caller without
 * a token cannot make the server buffer a large body.
 *
 * <p>Why: Jetty closes such a connection after the answer, because the unread bytes are still on
 * their way and it cannot tell where the next request starts; without the header a client pools the
 * connection and loses its next request on it ({@code header parser received no bytes}). The header
 * is the standard way for the server to say it will not keep the connection (RFC 9112 section 9.6).
 * An answer to a body that was read to its end keeps the connection.
 */
@Priority(Priorities.HEADER_DECORATOR)
public final class UnreadBodyCloses implements ContainerResponseFilter {
  private static final String CONNECTION = "Connection";
  private static final String CLOSE = "close";

  @Context private HttpServletRequest servletRequest;

  /** Creates the filter; Jersey injects the servlet request of each call. */
  public UnreadBodyCloses() {}

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    // A body refused from its headers was never read; asking the stream would make Jetty send
    // 100 Continue to a client waiting for it, which would then upload what was refused.
    boolean notRead = Boolean.TRUE.equals(request.getProperty(DeclaredLengthFilter.BODY_NOT_READ));
    if (declaresBody(request) && (notRead || !readToItsEnd())) {
      response.getHeaders().putSingle(CONNECTION, CLOSE);
    }
  }

  private static boolean declaresBody(ContainerRequestContext request) {
    return request.getLength() > 0 || request.getHeaderString("Transfer-Encoding") != null;
  }

  private boolean readToItsEnd() {
    try {
      return servletRequest.getInputStream().isFinished();
    } catch (IOException | IllegalStateException unreadable) {
      // The body was taken through a reader or the stream is broken: closing is the safe answer.
      return false;
    }
  }
}
