package dev.bothy.api.http;

import dev.bothy.api.Scope;
import dev.bothy.kernel.Clock;
import dev.bothy.sync.Consumers;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;

/** {@code /v1/consumers}: where each worker consumer stands, from the {@link Consumers} port. */
@Path("/v1/consumers")
public final class ConsumersResource {
  private final Consumers consumers;
  private final Clock clock;

  ConsumersResource(Consumers consumers, Clock clock) {
    this.consumers = consumers;
    this.clock = clock;
  }

  /**
   * Lists the consumers.
   *
   * @return one entry per cursor row, by name
   */
  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.ADMIN_READ)
  @Operation(
      summary = "The worker consumers and their lag",
      description =
          "Each consumer's last processed number, the head, the lag, the age of its oldest"
              + " unprocessed event (null at the head) and when its cursor last moved.",
      security = @SecurityRequirement(name = "bearer", scopes = "admin:read"),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The consumers",
            content = @Content(schema = @Schema(implementation = Json.Consumers.class))),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem")
      })
  public Json.Consumers list() {
    Instant now = clock.now();
    return new Json.Consumers(
        consumers.states().stream().map(s -> Json.Consumer.of(s, now)).toList());
  }
}
