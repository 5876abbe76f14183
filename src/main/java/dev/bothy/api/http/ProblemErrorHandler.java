package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * detail per status: nothing of the request (Jetty's reason may quote it) and no stack trace. Other
 * connectors (the admin port) keep Jetty's own answer.
 */
public final class ProblemErrorHandler extends ErrorHandler {
  /** The name Dropwizard gives the application connectors. */
  public static final String APPLICATION_CONNECTOR = "application";

  private final ObjectMapper mapper;

  /**
   * Creates the handler.
   *
   * @param mapper writes the problem documents
   */
  public ProblemErrorHandler(ObjectMapper mapper) {
    this.mapper = mapper;
    setShowStacks(false);
    setShowCauses(false);
    setShowMessageInTitle(false);
  }

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback)
      throws java.io.IOException {
    if (!onApplicationConnector(request)) {
      super.generateResponse(request, response, code, message, cause, callback);
      return;
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON);
    response.write(true, ByteBuffer.wrap(document(code)), callback);
  }

  private static boolean onApplicationConnector(Request request) {
    Connector connector = request.getConnectionMetaData().getConnector();
    return connector != null && APPLICATION_CONNECTOR.equals(connector.getName());
  }

  private byte[] document(int status) {
    ProblemType type = ProblemType.forStatus(status);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type.code());
    body.put("title", type.title());
    body.put("status", status);
    body.put("detail", detail(status, type));
    try {
      return mapper.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      // A map of four plain members always writes; keep the answer a problem anyway.
      return ("{\"type\":\"" + type.code() + "\",\"status\":" + status + "}")
          .getBytes(StandardCharsets.UTF_8);
    }
  }

  private static String detail(int status, ProblemType type) {
    return switch (status) {
      case 400 ->
          "The server refused the request before routing it: its path, a header or its framing"
              + " is malformed or ambiguous.";
      case 404 -> "No route matches the path.";
      case 414 -> "The request URI is longer than the server takes.";
      case 431 -> "The request's header fields are larger than the server takes.";
      case 413 -> "The request body is larger than the server takes.";
      default -> type.title() + ".";
    };
  }
}
