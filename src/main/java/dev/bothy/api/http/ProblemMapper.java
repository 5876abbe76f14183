package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.kernel.ErrorKind;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes every error of the API as {@code application/problem+json} (RFC 9457): an {@link
 * ApiProblem} as it is, a JAX-RS error by its status, an unavailable database as {@code
 * unavailable}, anything else as {@code internal} with the cause in the log and not in the body.
 */
public final class ProblemMapper implements ExceptionMapper<Throwable> {
  /** The media type of problem responses. */
  public static final String PROBLEM_JSON = "application/problem+json";

  private static final Logger LOG = LoggerFactory.getLogger(ProblemMapper.class);

  private final ObjectMapper mapper;

  @Context private UriInfo uriInfo;

  /**
   * Creates the mapper.
   *
   * @param mapper writes the problem documents
   */
  public ProblemMapper(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public Response toResponse(Throwable error) {
    ApiProblem problem = problem(error);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", problem.type().code());
    body.put("title", problem.type().title());
    body.put("status", problem.type().status());
    body.put("detail", problem.getMessage());
    if (uriInfo != null) {
      body.put("instance", "/" + ApiProblem.echo(uriInfo.getPath(false)));
    }
    body.putAll(problem.extensions());
    Response.ResponseBuilder response =
        Response.status(problem.type().status()).type(PROBLEM_JSON).entity(write(body));
    problem.headers().forEach(response::header);
    return response.build();
  }

  /**
   * Renders a problem outside a request, for filters that answer before a resource runs.
   *
   * @param problem the problem
   * @return the response
   */
  Response render(ApiProblem problem) {
    return toResponse(problem);
  }

  /**
   * The problem document of an error the server answers before a route runs (Jetty refused the
   * path, a header or the framing, or a limit of the connector): the type by its status, a fixed
   * detail per status and nothing of the request, since Jetty's own reason may quote it.
   *
   * @param status the status Jetty answers, kept as it is
   * @return the document, UTF-8 JSON
   */
  public byte[] beforeRouting(int status) {
    ProblemType type = ProblemType.forStatus(status);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type.code());
    body.put("title", type.title());
    body.put("status", status);
    body.put(
        "detail",
        switch (status) {
          case 400 ->
              "The server refused the request before routing it: its path, a header or its"
                  + " framing is malformed or ambiguous.";
          case 404 -> "No route matches the path.";
          case 413 -> "The request body is larger than the server takes.";
          case 414 -> "The request URI is longer than the server takes.";
          case 431 -> "The request's header fields are larger than the server takes.";
          // Jetty's own 503: the server is stopping (its graceful shutdown) or not started yet.
          case 503 ->
              "The server is not taking requests now (starting or stopping); retry shortly,"
                  + " or against another instance.";
          default -> type.title() + ".";
        });
    return write(body).getBytes(StandardCharsets.UTF_8);
  }

  private ApiProblem problem(Throwable error) {
    if (error instanceof ApiProblem p) {
      return p;
    }
    if (error instanceof WebApplicationException web) {
      int status = web.getResponse().getStatus();
      return switch (status) {
        case 404 -> ApiProblem.of(ProblemType.NOT_FOUND, "No route matches the path.");
        case 405 -> {
          ApiProblem p =
              ApiProblem.of(ProblemType.METHOD_NOT_ALLOWED, "The route does not take this method.");
          // Jersey's 405 names the route's methods; RFC 9110 makes Allow part of every 405.
          String allow = web.getResponse().getHeaderString("Allow");
          yield allow == null ? p : p.withHeader("Allow", withHead(allow));
        }
        case 415 ->
            ApiProblem.of(
                ProblemType.UNSUPPORTED_MEDIA_TYPE,
                "Send the body as Content-Type: application/json.");
        case 406 ->
            ApiProblem.of(
                ProblemType.NOT_ACCEPTABLE, "The route cannot answer in the type Accept asks for.");
        default -> {
          if (status >= 500) {
            LOG.error(
                "request failed: status={} error.type={}",
                status,
                ErrorFields.type(error),
                ErrorFields.redacted(error));
            yield ApiProblem.of(ProblemType.INTERNAL, "The server failed; it logged the cause.");
          }
          yield ApiProblem.of(ProblemType.INVALID_REQUEST, "The request is not valid.");
        }
      };
    }
    if (error instanceof BothyException e && e.kind() == ErrorKind.UNAVAILABLE) {
      LOG.warn(
          "request failed, the database is unavailable: error.type={} sqlstate={}",
          ErrorFields.type(e),
          ErrorFields.sqlState(e));
      return ApiProblem.of(ProblemType.UNAVAILABLE, "The database is not reachable; retry later.")
          .withHeader("Retry-After", "1");
    }
    LOG.error(
        "request failed: error.type={} sqlstate={}",
        ErrorFields.type(error),
        ErrorFields.sqlState(error),
        ErrorFields.redacted(error));
    return ApiProblem.of(ProblemType.INTERNAL, "The server failed; it logged the cause.");
  }

  private String write(Map<String, Object> body) {
    try {
      return mapper.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a problem document is plain data", e);
    }
  }

  /**
   * Adds {@code HEAD} to a 405's {@code Allow} when it names {@code GET}: Jersey answers {@code
   * HEAD} on every {@code GET} route but leaves it out of the header it builds.
   */
  private static String withHead(String allow) {
    List<String> methods = Arrays.stream(allow.split(",")).map(String::strip).toList();
    if (methods.contains("GET") && !methods.contains("HEAD")) {
      return allow + ",HEAD";
    }
    return allow;
  }
}
