package dev.bothy.wire;

import dev.bothy.api.http.ProblemMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error handler for the errors it answers itself, before a route runs: a path it refuses
 * ({@code /v1/%2e%2e/...}), a duplicated or malformed header, a header or URI over the connector's
 * limits, an unparsable {@code Content-Type}. On the application connectors the answer is an RFC
 * 9457 problem document like every other API error, with Jetty's status unchanged and a fixed
 * detail per status: nothing of the request (Jetty's reason may quote it) and no stack trace, with
 * {@code X-Content-Type-Options: nosniff} as every routed answer has it. Other connectors (the
 * admin port) keep Jetty's own answer.
 */
final class ProblemErrorHandler extends ErrorHandler {
  /** The name Dropwizard gives the application connectors. */
  static final String APPLICATION_CONNECTOR = "application";

  private final ProblemMapper problems;

  /**
   * Creates the handler.
   *
   * @param problems writes the problem documents
   */
  ProblemErrorHandler(ProblemMapper problems) {
    this.problems = problems;
    setShowStacks(false);
    setShowCauses(false);
    setShowMessageInTitle(false);
  }

  /**
   * Answers every method with a document: Jetty's default writes a body only for {@code GET},
   * {@code POST} and {@code HEAD}, so a refused {@code TRACE} or {@code DELETE} got an empty one.
   */
  @Override
  public boolean errorPageForMethod(String method) {
    return true;
  }

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback)
      throws IOException {
    if (!onApplicationConnector(request)) {
      super.generateResponse(request, response, code, message, cause, callback);
      return;
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON);
    // As on every routed answer (NoSniffFilter, D-API-18), which these never reach.
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.write(true, ByteBuffer.wrap(problems.beforeRouting(code)), callback);
  }

  private static boolean onApplicationConnector(Request request) {
    Connector connector = request.getConnectionMetaData().getConnector();
    return connector != null && APPLICATION_CONNECTOR.equals(connector.getName());
  }
}
