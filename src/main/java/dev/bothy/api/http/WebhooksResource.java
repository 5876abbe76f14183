package dev.bothy.api.http;

import dev.bothy.api.Scope;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Ids;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import dev.bothy.webhooks.CreatedSubscription;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.TargetNotAllowed;
import dev.bothy.webhooks.WebhookSubscriptions;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code /v1/webhooks/subscriptions}: the operator's verbs on outgoing webhook subscriptions, over
 * the {@link WebhookSubscriptions} port; scope {@code webhooks:admin}. Holds no SQL and no
 * transaction. A secret appears only in the answers of create and rotate; a URL is never echoed in
 * a problem.
 */
@Path("/v1/webhooks/subscriptions")
public final class WebhooksResource {
  private static final String SCOPE = "webhooks:admin";

  private final WebhookSubscriptions subscriptions;
  private final AppendRequestReader bodies;
  private final WebhookRequestReader reader;
  private final int maxPageSize;
  private final int defaultPageSize;

  WebhooksResource(
      WebhookSubscriptions subscriptions,
      AppendRequestReader bodies,
      WebhookRequestReader reader,
      int maxPageSize,
      int defaultPageSize) {
    this.subscriptions = subscriptions;
    this.bodies = bodies;
    this.reader = reader;
    this.maxPageSize = maxPageSize;
    this.defaultPageSize = defaultPageSize;
  }

  /**
   * Creates a subscription.
   *
   * @param body the JSON body
   * @param headers the request's headers, for {@code Content-Encoding}
   * @return {@code 201} with the subscription and its secret
   */
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "createWebhookSubscription",
      summary = "Create a webhook subscription",
      description =
          "Creates an active subscription that receives the matching events committed from now"
              + " on, signed per Standard Webhooks. The answer holds the signing secret, shown"
              + " only this once. A target the network rules refuse is 400"
              + " webhook_target_refused.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      requestBody =
          @RequestBody(
              required = true,
              content = @Content(schema = @Schema(implementation = WebhooksJson.CreateIn.class))),
      responses = {
        @ApiResponse(
            responseCode = "201",
            description = "Created",
            content = @Content(schema = @Schema(implementation = WebhooksJson.CreatedOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "415", ref = "#/components/responses/Problem")
      })
  public Response create(@Parameter(hidden = true) InputStream body, @Context HttpHeaders headers) {
    byte[] bytes = read(body, headers);
    CreatedSubscription created = call(() -> subscriptions.create(reader.create(bytes)));
    return Response.created(URI.create("/v1/webhooks/subscriptions/" + created.subscription().id()))
        .type(MediaType.APPLICATION_JSON)
        .entity(created(created))
        .build();
  }

  /**
   * Lists subscriptions.
   *
   * @param after the last id of the previous page
   * @param limit the most to return
   * @return the page
   */
  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "listWebhookSubscriptions",
      summary = "List webhook subscriptions",
      description =
          "Subscriptions in creation order, without their secrets; next_after is the after of"
              + " the next page, null after the last.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "A page",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionsOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionsOut list(
      @Parameter(
              description = "The last id of the previous page",
              schema = @Schema(type = "string", format = "uuid"))
          @QueryParam("after")
          String after,
      @Parameter(
              description =
                  "Most subscriptions to return, lowered to api.maxPageSize; default"
                      + " api.defaultPageSize",
              schema = @Schema(type = "integer", format = "int32", minimum = "1"))
          @QueryParam("limit")
          String limit) {
    Optional<UUID> from = after == null ? Optional.empty() : Optional.of(id(after, "after"));
    int size = limit == null ? defaultPageSize : limit(limit);
    // One more than the page: a full last page says so with a null next_after, so a client that
    // follows it never asks for an empty page.
    List<Subscription> rows = call(() -> subscriptions.list(from, size + 1));
    List<Subscription> page = rows.subList(0, Math.min(size, rows.size()));
    String next = rows.size() > size ? page.get(page.size() - 1).id().toString() : null;
    return new WebhooksJson.SubscriptionsOut(
        page.stream().map(WebhooksJson.SubscriptionOut::of).toList(), next);
  }

  /**
   * Shows a subscription.
   *
   * @param id its id
   * @return the subscription
   */
  @GET
  @Path("/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "getWebhookSubscription",
      summary = "Show a webhook subscription",
      description =
          "The subscription without its secret: its state and reason, the last delivered number,"
              + " the number an ordered subscription holds and since when it fails.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The subscription",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionOut show(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id) {
    UUID key = id(id, "id");
    return WebhooksJson.SubscriptionOut.of(
        call(() -> subscriptions.find(key)).orElseThrow(WebhooksResource::notFound));
  }

  /**
   * Changes a subscription.
   *
   * @param id its id
   * @param body the JSON body
   * @param headers the request's headers
   * @return the subscription
   */
  @PATCH
  @Path("/{id}")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "updateWebhookSubscription",
      summary = "Change a webhook subscription",
      description =
          "Replaces the url, event_types or rate_limit given; the url is checked like at"
              + " creation. Values equal to the current ones (or an empty object) change"
              + " nothing, updated_at included.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      requestBody =
          @RequestBody(
              required = true,
              content = @Content(schema = @Schema(implementation = WebhooksJson.UpdateIn.class))),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The changed subscription",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "415", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionOut update(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    UUID key = id(id, "id");
    byte[] bytes = read(body, headers);
    return WebhooksJson.SubscriptionOut.of(
        call(() -> subscriptions.update(key, reader.update(bytes))));
  }

  /**
   * Deletes a subscription.
   *
   * @param id its id
   * @return {@code 204}
   */
  @DELETE
  @Path("/{id}")
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "deleteWebhookSubscription",
      summary = "Delete a webhook subscription",
      description = "Deletes the subscription and its attempts; queued deliveries end unsent.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(responseCode = "204", description = "Deleted"),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public Response delete(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id) {
    UUID key = id(id, "id");
    call(
        () -> {
          subscriptions.delete(key);
          return null;
        });
    return Response.noContent().build();
  }

  /**
   * Disables a subscription.
   *
   * @param id its id
   * @param body the request body, which must be empty
   * @param headers the request's headers
   * @return the subscription
   */
  @POST
  @Path("/{id}/disable")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "disableWebhookSubscription",
      summary = "Disable a webhook subscription",
      description =
          "Disables it with the reason manual; queued deliveries end unsent. A disabled one"
              + " stays as it is.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The subscription",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionOut disable(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    noBody(body, headers);
    UUID key = id(id, "id");
    return WebhooksJson.SubscriptionOut.of(call(() -> subscriptions.disable(key)));
  }

  /**
   * Enables a subscription.
   *
   * @param id its id
   * @param body the request body, which must be empty
   * @param headers the request's headers
   * @return the subscription
   */
  @POST
  @Path("/{id}/enable")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "enableWebhookSubscription",
      summary = "Enable a webhook subscription",
      description =
          "Enables it and clears its failure streak. It receives the events committed from now"
              + " on; an ordered one first delivers the event it held. Use recover for the events"
              + " in between.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The subscription",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionOut enable(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    noBody(body, headers);
    UUID key = id(id, "id");
    return WebhooksJson.SubscriptionOut.of(call(() -> subscriptions.enable(key)));
  }

  /**
   * Rotates the secret.
   *
   * @param id its id
   * @param body the request body, which must be empty
   * @param headers the request's headers
   * @return the subscription and its new secret
   */
  @POST
  @Path("/{id}/rotate-secret")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "rotateWebhookSecret",
      summary = "Rotate a webhook subscription's secret",
      description =
          "Makes a new secret, shown only in this answer. The old one keeps signing beside it"
              + " until previous_secret_expires_at (webhooks.secretRotationWindow); until then"
              + " another rotation is refused with 409, since it would stop the old secret at"
              + " once while receivers may still hold it.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The subscription and its new secret",
            content = @Content(schema = @Schema(implementation = WebhooksJson.CreatedOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "409", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.CreatedOut rotate(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    noBody(body, headers);
    UUID key = id(id, "id");
    return created(call(() -> subscriptions.rotateSecret(key)));
  }

  /**
   * Recovers from a number.
   *
   * @param id its id
   * @param body the JSON body
   * @param headers the request's headers
   * @return the subscription
   */
  @POST
  @Path("/{id}/recover")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "recoverWebhookSubscription",
      summary = "Recover a webhook subscription from a number",
      description =
          "Enables it and delivers every matching event from from_seq on, which must be within"
              + " the retained log: for a subscription disabled with gap, or to replay.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      requestBody =
          @RequestBody(
              required = true,
              content = @Content(schema = @Schema(implementation = WebhooksJson.RecoverIn.class))),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The subscription",
            content =
                @Content(schema = @Schema(implementation = WebhooksJson.SubscriptionOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "415", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.SubscriptionOut recover(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    UUID key = id(id, "id");
    long from = reader.seq(read(body, headers), "from_seq");
    return WebhooksJson.SubscriptionOut.of(call(() -> subscriptions.recover(key, from)));
  }

  /**
   * Resends one event.
   *
   * @param id its id
   * @param body the JSON body
   * @param headers the request's headers
   * @return {@code 202}
   */
  @POST
  @Path("/{id}/resend")
  @Consumes(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "resendWebhookEvent",
      summary = "Deliver one event again",
      description =
          "Queues one more delivery of the event, a retained one of the subscription's types; an"
              + " ordered subscription gets it outside its order. A disabled subscription is 409.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      requestBody =
          @RequestBody(
              required = true,
              content = @Content(schema = @Schema(implementation = WebhooksJson.ResendIn.class))),
      responses = {
        @ApiResponse(responseCode = "202", description = "Queued"),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "409", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "415", ref = "#/components/responses/Problem")
      })
  public Response resend(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(hidden = true) InputStream body,
      @Context HttpHeaders headers) {
    UUID key = id(id, "id");
    long seq = reader.seq(read(body, headers), "seq");
    call(
        () -> {
          subscriptions.resend(key, seq);
          return null;
        });
    return Response.accepted().build();
  }

  /**
   * Lists attempts.
   *
   * @param id its id
   * @param seq only this event's attempts
   * @param before the {@code next_before} of the previous page, or nothing for the first
   * @param limit the most to return
   * @return the attempts, newest first, and the cursor of the next page
   */
  @GET
  @Path("/{id}/attempts")
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.WEBHOOKS_ADMIN)
  @Operation(
      operationId = "listWebhookAttempts",
      summary = "List a webhook subscription's delivery attempts",
      description =
          "The recorded attempts, newest first, kept for webhooks.attemptRetention: the status,"
              + " the start of the answer (webhooks.maxResponseBodyChars) or the error kind. A"
              + " page that is not the last gives next_before; pass it as before for the next.",
      security = @SecurityRequirement(name = "bearer", scopes = SCOPE),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The attempts",
            content = @Content(schema = @Schema(implementation = WebhooksJson.AttemptsOut.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "404", ref = "#/components/responses/Problem")
      })
  public WebhooksJson.AttemptsOut attempts(
      @Parameter(description = "The subscription's id", schema = @Schema(format = "uuid"))
          @PathParam("id")
          String id,
      @Parameter(
              description = "Only the attempts of this event",
              schema = @Schema(type = "integer", format = "int64", minimum = "1"))
          @QueryParam("seq")
          String seq,
      @Parameter(description = "The next_before of the previous page; the first page without it")
          @QueryParam("before")
          String before,
      @Parameter(
              description =
                  "Most attempts to return, lowered to api.maxPageSize; default"
                      + " api.defaultPageSize",
              schema = @Schema(type = "integer", format = "int32", minimum = "1"))
          @QueryParam("limit")
          String limit) {
    UUID key = id(id, "id");
    OptionalLong only = seq == null ? OptionalLong.empty() : OptionalLong.of(seqParam(seq));
    Optional<AttemptKey> cursor = before == null ? Optional.empty() : Optional.of(cursor(before));
    int size = limit == null ? defaultPageSize : limit(limit);
    // One more than the page tells whether a next page exists.
    List<Attempt> rows = call(() -> subscriptions.attempts(key, only, cursor, size + 1));
    List<Attempt> page = rows.subList(0, Math.min(size, rows.size()));
    return new WebhooksJson.AttemptsOut(
        page.stream().map(WebhooksJson.AttemptOut::of).toList(),
        rows.size() > size ? AttemptKey.of(page.get(page.size() - 1)).encode() : null);
  }

  private static AttemptKey cursor(String text) {
    return AttemptKey.parse(text)
        .orElseThrow(
            () ->
                ApiProblem.of(
                        ProblemType.INVALID_REQUEST,
                        "before must be the next_before of a previous page, passed back"
                            + " unchanged.")
                    .with("parameter", "before"));
  }

  private byte[] read(InputStream body, HttpHeaders headers) {
    bodies.requireKnownEncoding(headers.getRequestHeader("Content-Encoding"));
    return bodies.readBody(body);
  }

  /** A verb without a body refuses one, as the API refuses unknown members elsewhere. */
  private void noBody(InputStream body, HttpHeaders headers) {
    if (read(body, headers).length > 0) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "This request takes no body.");
    }
  }

  private static WebhooksJson.CreatedOut created(CreatedSubscription c) {
    return new WebhooksJson.CreatedOut(
        WebhooksJson.SubscriptionOut.of(c.subscription()), c.secret());
  }

  /** Runs a verb and turns the port's errors into problems. */
  private static <T> T call(Supplier<T> verb) {
    try {
      return verb.get();
    } catch (TargetNotAllowed e) {
      throw ApiProblem.at(
              ProblemType.WEBHOOK_TARGET_REFUSED,
              "/url",
              "The target is refused by the network rules (webhooks.allowedNetworks,"
                  + " webhooks.allowPlainHttp): "
                  + e.reason()
                  + ".")
          .with("reason", e.reason());
    } catch (BothyException e) {
      throw switch (e.kind()) {
        case NOT_FOUND -> notFound();
        case INVALID ->
            e.pointer()
                .map(p -> ApiProblem.at(invalidType(p), p, e.getMessage() + "."))
                .orElseGet(() -> ApiProblem.of(ProblemType.INVALID_REQUEST, e.getMessage() + "."));
        case CONFLICT -> ApiProblem.of(ProblemType.WEBHOOK_STATE_CONFLICT, e.getMessage() + ".");
        default -> e;
      };
    }
  }

  /**
   * The service points into {@code event_types} only at a type the catalogue does not hold, which
   * the events API answers as {@code unknown_event_type} too.
   */
  private static ProblemType invalidType(String pointer) {
    return pointer.startsWith("/event_types/")
        ? ProblemType.UNKNOWN_EVENT_TYPE
        : ProblemType.INVALID_REQUEST;
  }

  private static ApiProblem notFound() {
    return ApiProblem.of(ProblemType.NOT_FOUND, "No webhook subscription has this id.");
  }

  private static UUID id(String text, String parameter) {
    return Ids.parse(text)
        .orElseThrow(
            () ->
                ApiProblem.of(ProblemType.INVALID_REQUEST, parameter + " must be a UUID.")
                    .with("parameter", parameter));
  }

  private static long seqParam(String text) {
    if (!text.matches("[0-9]{1,18}") || Long.parseLong(text) < 1) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "seq must be a number of 1 or more.")
          .with("parameter", "seq");
    }
    return Long.parseLong(text);
  }

  private int limit(String text) {
    if (!text.matches("[0-9]{1,10}")
        || Long.parseLong(text) < 1
        || Long.parseLong(text) > Integer.MAX_VALUE) {
      throw ApiProblem.of(
              ProblemType.INVALID_REQUEST,
              "limit must be a number from 1 to 2147483647; above api.maxPageSize it is lowered.")
          .with("parameter", "limit");
    }
    return Math.min(Integer.parseInt(text), maxPageSize);
  }
}
