package dev.bothy.console.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes every error of the console's API as {@code application/problem+json}: a {@link
 * ConsoleProblem} as it is, a {@link BothyException} by its kind, a JAX-RS error by its status, a
 * body that is not JSON as {@code invalid_request}, anything else as {@code internal} with the
 * cause in the log and not in the body.
 */
public final class ConsoleProblemMapper implements ExceptionMapper<Throwable> {
  /** The media type of problem responses. */
  static final String PROBLEM_JSON = "application/problem+json";

  private static final Logger LOG = LoggerFactory.getLogger(ConsoleProblemMapper.class);

  @Override
  public Response toResponse(Throwable error) {
    ConsoleProblem problem = problem(error);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", problem.type().code());
    body.put("title", problem.type().title());
    body.put("status", problem.type().status());
    body.put("detail", problem.getMessage());
    Response.ResponseBuilder response =
        Response.status(problem.type().status()).type(PROBLEM_JSON).entity(body);
    problem.headers().forEach(response::header);
    return response.build();
  }

  private static ConsoleProblem problem(Throwable error) {
    if (error instanceof ConsoleProblem p) {
      return p;
    }
    if (error instanceof BothyException e) {
      return switch (e.kind()) {
        case NOT_FOUND -> ConsoleProblem.of(ConsoleProblem.Type.NOT_FOUND, e.getMessage());
        case INVALID -> ConsoleProblem.of(ConsoleProblem.Type.INVALID_REQUEST, e.getMessage());
        case CONFLICT -> ConsoleProblem.of(ConsoleProblem.Type.CONFLICT, e.getMessage());
        case UNAVAILABLE ->
            ConsoleProblem.of(
                ConsoleProblem.Type.UNAVAILABLE, "The database cannot answer now; retry later.");
        case INTERNAL -> internal(error);
      };
    }
    if (error instanceof JsonProcessingException) {
      return ConsoleProblem.of(
          ConsoleProblem.Type.INVALID_REQUEST, "The body is not the JSON this route takes.");
    }
    if (error instanceof WebApplicationException web) {
      int status = web.getResponse().getStatus();
      return switch (status) {
        case 404 -> ConsoleProblem.of(ConsoleProblem.Type.NOT_FOUND, "No route matches the path.");
        case 405 -> {
          ConsoleProblem p =
              ConsoleProblem.of(
                  ConsoleProblem.Type.METHOD_NOT_ALLOWED, "The route does not take this method.");
          String allow = web.getResponse().getHeaderString("Allow");
          yield allow == null ? p : p.withHeader("Allow", allow);
        }
        case 415 ->
            ConsoleProblem.of(
                ConsoleProblem.Type.UNSUPPORTED_MEDIA_TYPE,
                "Send the body as Content-Type: application/json.");
        default ->
            status >= 500
                ? internal(error)
                : ConsoleProblem.of(
                    ConsoleProblem.Type.INVALID_REQUEST, "The request is not valid.");
      };
    }
    return internal(error);
  }

  private static ConsoleProblem internal(Throwable error) {
    LOG.error(
        "console request failed: error.type={}",
        ErrorFields.type(error),
        ErrorFields.redacted(error));
    return ConsoleProblem.of(
        ConsoleProblem.Type.INTERNAL, "The server failed; it logged the cause.");
  }
}
