package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.jaxrs2.Reader;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.integration.SwaggerConfiguration;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * {@code /openapi.json}: the OpenAPI 3 document, generated from the resources' annotations at
 * start. Public: it describes the API and holds no data. {@code docs/api/openapi.json} is the same
 * document, checked in; a test fails when it is stale.
 */
@Path("/openapi.json")
public final class OpenApiResource {
  /** The resources the document describes: every route of the API. */
  public static final List<Class<?>> RESOURCES =
      List.of(
          EventsResource.class,
          ConsumersResource.class,
          WebhooksResource.class,
          SystemResource.class,
          OpenApiResource.class);

  private final String document;

  OpenApiResource() {
    this.document = render();
  }

  /**
   * Returns the document.
   *
   * @return the OpenAPI JSON
   */
  @GET
  @Produces(jakarta.ws.rs.core.MediaType.APPLICATION_JSON)
  @io.swagger.v3.oas.annotations.Operation(
      summary = "This OpenAPI document",
      responses = {
        @ApiResponse(responseCode = "200", description = "The document"),
        @ApiResponse(responseCode = "406", ref = "#/components/responses/Problem")
      })
  public String document() {
    return document;
  }

  /**
   * Renders the document from the resource classes, with sorted members so the text is stable.
   *
   * @return the OpenAPI JSON, pretty printed, ending with a newline
   */
  public static String render() {
    Components components =
        new Components()
            .addSecuritySchemes(
                "bearer",
                new SecurityScheme()
                    .type(SecurityScheme.Type.HTTP)
                    .scheme("bearer")
                    .description("A token of api.tokens; each operation names the scope it needs."))
            .addHeaders(
                RETRY_AFTER,
                header("Seconds to wait before the request is worth sending again", "integer"))
            .addHeaders(
                WWW_AUTHENTICATE,
                header("Bearer realm=\"bothy\": send a token of api.tokens", null))
            .addHeaders(LOCATION, header("The path of what the request created", null))
            .addHeaders(
                IDEMPOTENT_REPLAYED,
                header(
                    "true when this is the stored answer of an earlier request with the same"
                        + " Idempotency-Key",
                    null))
            .addResponses(
                "Unauthorized",
                problem("No token, or not one of api.tokens")
                    .addHeaderObject(WWW_AUTHENTICATE, ref(WWW_AUTHENTICATE)))
            .addResponses(
                "Unavailable",
                problem(
                        "The database is out of reach (unavailable), or the stream limit is"
                            + " reached (too_many_streams); try again after Retry-After")
                    .addHeaderObject(RETRY_AFTER, ref(RETRY_AFTER)))
            .addResponses("Problem", problem("A problem (RFC 9457) with a stable type"));
    OpenAPI base =
        new OpenAPI()
            .info(
                new Info()
                    .title("Bothy HTTP API")
                    .version("v1")
                    .description(
                        "Append events, read the log with the resync rule, follow it live, read"
                            + " the consumers' lag. See docs/api/README.md."))
            .servers(
                List.of(
                    new Server()
                        .url("/")
                        .description(
                            "The host and port that serve this document"
                                + " (server.applicationConnectors)")))
            .components(components);
    Reader reader = new Reader(new SwaggerConfiguration().openAPI(base));
    OpenAPI api = reader.read(new LinkedHashSet<>(RESOURCES));
    api.getPaths()
        .forEach((path, item) -> item.readOperations().forEach(op -> completeResponses(path, op)));
    // Public on purpose (it holds no data): an empty list says so, where no list would say
    // nothing and leave a reader guessing.
    api.getPaths().get("/openapi.json").getGet().setSecurity(List.of());
    @SuppressWarnings("rawtypes")
    Map<String, Schema> problem = ModelConverters.getInstance().read(Json.Problem.class);
    problem.forEach(api.getComponents()::addSchemas);
    try {
      return io.swagger.v3.core.util.Json.mapper()
              .copy()
              .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
              .writerWithDefaultPrettyPrinter()
              .writeValueAsString(api)
          + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the OpenAPI model is plain data", e);
    }
  }

  private static final String RETRY_AFTER = "Retry-After";
  private static final String WWW_AUTHENTICATE = "WWW-Authenticate";
  private static final String LOCATION = "Location";
  private static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";

  /**
   * Adds what every operation can answer besides the responses its annotations list, so the
   * document says it once (D-API-17): {@code 401} with {@code WWW-Authenticate}, {@code 406} where
   * a success has a body, {@code 503} with {@code Retry-After} on every route that reads or writes
   * the database, {@code Idempotent-Replayed} on the success of a route that takes {@code
   * Idempotency-Key}, and {@code Location} on a {@code 201} that names one created resource.
   */
  private static void completeResponses(String path, Operation op) {
    ApiResponses responses = op.getResponses();
    boolean hasBody =
        responses.entrySet().stream()
            .anyMatch(r -> r.getKey().startsWith("2") && r.getValue().getContent() != null);
    if (hasBody) {
      responses.putIfAbsent("406", refResponse("Problem"));
    }
    if (responses.containsKey("401")) {
      responses.put("401", refResponse("Unauthorized"));
    }
    if (!path.equals("/openapi.json")) {
      responses.put("503", refResponse("Unavailable"));
    }
    boolean idempotent =
        op.getParameters() != null
            && op.getParameters().stream()
                .anyMatch(p -> IdempotencyKeyHeader.NAME.equals(p.getName()));
    responses.forEach(
        (code, response) -> {
          if (!code.startsWith("2") || response.get$ref() != null) {
            return;
          }
          if (idempotent) {
            response.addHeaderObject(IDEMPOTENT_REPLAYED, ref(IDEMPOTENT_REPLAYED));
          }
          if (code.equals("201") && !path.equals("/v1/events")) {
            response.addHeaderObject(LOCATION, ref(LOCATION));
          }
        });
  }

  private static Header header(String description, String type) {
    return new Header()
        .description(description)
        .schema(new Schema<>().type(type == null ? "string" : type));
  }

  private static Header ref(String name) {
    return new Header().$ref("#/components/headers/" + name);
  }

  private static io.swagger.v3.oas.models.responses.ApiResponse refResponse(String name) {
    return new io.swagger.v3.oas.models.responses.ApiResponse()
        .$ref("#/components/responses/" + name);
  }

  private static io.swagger.v3.oas.models.responses.ApiResponse problem(String description) {
    return new io.swagger.v3.oas.models.responses.ApiResponse()
        .description(description)
        .content(
            new Content()
                .addMediaType(
                    ProblemMapper.PROBLEM_JSON,
                    new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"))));
  }
}
