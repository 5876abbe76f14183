package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.jaxrs2.Reader;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.integration.SwaggerConfiguration;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
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
  @Operation(
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
            .addResponses(
                "Problem",
                new io.swagger.v3.oas.models.responses.ApiResponse()
                    .description("A problem (RFC 9457) with a stable type")
                    .content(
                        new Content()
                            .addMediaType(
                                ProblemMapper.PROBLEM_JSON,
                                new MediaType()
                                    .schema(new Schema<>().$ref("#/components/schemas/Problem")))));
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
}
