package dev.bothy.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.bothy.api.Scope;
import dev.bothy.api.app.RecordPing;
import dev.bothy.api.domain.TokenHash;
import dev.bothy.kernel.Ids;
import dev.bothy.system.Ping;
import dev.bothy.system.Pings;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code /v1/system/pings}: flow 00, the worked example of a bus consumer, over the {@link Pings}
 * port. {@code POST} records a ping and appends {@code system.pinged} in one unit (scope {@code
 * system:write}); the bus handler {@code system.echo} echoes it; {@code GET} shows its status
 * (scope {@code system:read}). Holds no SQL and no transaction.
 */
@Path("/v1/system/pings")
public final class SystemResource {

  /**
   * What a keyed request's row hashes: the route, since the body is always empty. A key sent to
   * {@code POST /v1/events} and then here never matches.
   */
  private static final byte[] REQUEST_SHA256 =
      TokenHash.sha256("POST /v1/system/pings".getBytes(StandardCharsets.UTF_8));

  private final RecordPing recordPing;
  private final Pings pings;
  private final AppendRequestReader bodies;

  SystemResource(RecordPing recordPing, Pings pings, AppendRequestReader bodies) {
    this.recordPing = recordPing;
    this.pings = pings;
    this.bodies = bodies;
  }

  /**
   * The answer of {@code POST}.
   *
   * @param id the ping's id
   */
  @Schema(name = "PingCreated")
  public record CreatedOut(@Schema(format = "uuid") String id) {}

  /**
   * A ping as {@code GET} shows it.
   *
   * @param id the ping's id
   * @param status {@code pinged}, then {@code echoed}
   * @param pingedAt when it was recorded
   * @param echoedAt when the handler {@code system.echo} echoed it, null before
   */
  @Schema(name = "Ping")
  @JsonPropertyOrder({"id", "status", "pinged_at", "echoed_at"})
  public record PingOut(
      @Schema(format = "uuid") String id,
      @Schema(allowableValues = {"pinged", "echoed"}) String status,
      @JsonProperty("pinged_at") @Schema(format = "date-time") String pingedAt,
      @JsonProperty("echoed_at")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(format = "date-time", nullable = true)
          String echoedAt) {
    static PingOut of(Ping p) {
      return new PingOut(
          p.id().toString(),
          p.status().code(),
          p.pingedAt().toString(),
          p.echoedAt().map(Instant::toString).orElse(null));
    }
  }

  /**
   * Records a ping.
   *
   * @param idempotencyKey the optional {@code Idempotency-Key}, declared for the API document; the
   *     method reads it from {@code headers} through {@link IdempotencyKeyHeader}, which also
   *     refuses it sent twice
   * @param body the request body, which must be empty
   * @param security the authenticated token, as {@link TokenFilter} set it
   * @param headers the request's headers, for a repeated {@code Idempotency-Key}
   * @return {@code 201} with the ping's id and its {@code Location}
   */
  @POST
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.SYSTEM_WRITE)
  @Operation(
      operationId = "createPing",
      summary = "Record a ping (flow 00)",
      description =
          "Records a ping with status pinged and appends system.pinged in one transaction; the"
              + " bus handler system.echo then marks it echoed and appends system.echoed. The"
              + " request has no body. With Idempotency-Key, a retry within"
              + " api.idempotencyRetention returns the first ping's id and records nothing.",
      security = @SecurityRequirement(name = "bearer", scopes = "system:write"),
      responses = {
        @ApiResponse(
            responseCode = "201",
            description = "Recorded",
            content = @Content(schema = @Schema(implementation = CreatedOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "409", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem")
      })
  public Response create(
      @Parameter(
              description = "Makes retries safe: 1 to 255 visible ASCII characters, per token",
              in = ParameterIn.HEADER)
          @HeaderParam("Idempotency-Key")
          String idempotencyKey,
      @Parameter(hidden = true) InputStream body,
      @Context SecurityContext security,
      @Context HttpHeaders headers) {
    Optional<String> key = IdempotencyKeyHeader.of(headers);
    bodies.requireKnownEncoding(headers.getRequestHeader("Content-Encoding"));
    if (bodies.readBody(body).length > 0) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "This request takes no body.");
    }
    RecordPing.Answer answer =
        recordPing.record(security.getUserPrincipal().getName(), key, REQUEST_SHA256);
    if (answer instanceof RecordPing.Answer.KeyConflict) {
      throw IdempotencyKeyHeader.conflict("request");
    }
    RecordPing.Answer.Recorded recorded = (RecordPing.Answer.Recorded) answer;
    UUID id = recorded.id();
    Response.ResponseBuilder response =
        Response.created(URI.create("/v1/system/pings/" + id))
            .type(MediaType.APPLICATION_JSON)
            .entity(new CreatedOut(id.toString()));
    if (recorded.replayed()) {
      response.header("Idempotent-Replayed", "true");
    }
    return response.build();
  }

  /**
   * Shows a ping.
   *
   * @param id the ping's id
   * @return the ping
   */
  @GET
  @Path("/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.SYSTEM_READ)
  @Operation(
      operationId = "getPing",
      summary = "Show a ping (flow 00)",
      description = "The ping's status: pinged, then echoed once system.echo ran.",
      security = @SecurityRequirement(name = "bearer", scopes = "system:read"),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The ping",
            content = @Content(schema = @Schema(implementation = PingOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public PingOut show(
      @Parameter(description = "The ping's id", schema = @Schema(type = "string", format = "uuid"))
          @PathParam("id")
          String id) {
    UUID pingId =
        Ids.parse(id)
            .orElseThrow(
                () ->
                    ApiProblem.of(ProblemType.INVALID_REQUEST, "id must be a UUID.")
                        .with("parameter", "id"));
    return pings
        .find(pingId)
        .map(PingOut::of)
        .orElseThrow(() -> ApiProblem.of(ProblemType.NOT_FOUND, "No ping has this id."));
  }
}
