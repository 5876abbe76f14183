package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.Scope;
import dev.bothy.api.app.AppendEvents;
import dev.bothy.api.domain.TokenHash;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ReadResult;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code /v1/events}: append in one unit ({@code POST}), read a page after a number ({@code GET}),
 * follow the log live ({@code GET /stream}). Calls the ports of {@code sync} and the {@link
 * AppendEvents} service; holds no SQL and no transaction.
 */
@Path("/v1/events")
public final class EventsResource {
  // Any number of digits: one past a long is "too large", not "no number".
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private final AppendEvents appendEvents;
  private final EventLog log;
  private final EventTypes types;
  private final EventStreams streams;
  private final AppendRequestReader reader;
  private final ObjectMapper mapper;
  private final int maxPageSize;
  private final int defaultPageSize;
  private final long retryAfterSeconds;

  EventsResource(
      AppendEvents appendEvents,
      EventLog log,
      EventTypes types,
      EventStreams streams,
      AppendRequestReader reader,
      ObjectMapper mapper,
      int maxPageSize,
      int defaultPageSize,
      long retryAfterSeconds) {
    this.appendEvents = appendEvents;
    this.log = log;
    this.types = types;
    this.streams = streams;
    this.reader = reader;
    this.mapper = mapper;
    this.maxPageSize = maxPageSize;
    this.defaultPageSize = defaultPageSize;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /**
   * Appends events in one unit of work.
   *
   * @param idempotencyKey the optional {@code Idempotency-Key}, declared for the API document; the
   *     method reads it from {@code headers} through {@link IdempotencyKeyHeader}, which also
   *     refuses it sent twice
   * @param contentLength the declared body size, checked before reading
   * @param body the JSON body
   * @param security the authenticated token, as {@link TokenFilter} set it
   * @param headers the request's headers, for those that must come once ({@code Idempotency-Key})
   *     or name a coding the server does not decode ({@code Content-Encoding})
   * @return {@code 201} with the ids and numbers in order, or the stored first response of a retry
   */
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.EVENTS_APPEND)
  @Operation(
      summary = "Append events in one atomic unit",
      description =
          "All events of the body are appended in one transaction, numbered consecutively, or none"
              + " is. With Idempotency-Key, a retry with the same body within"
              + " api.idempotencyRetention returns the first response and appends nothing.",
      security = @SecurityRequirement(name = "bearer", scopes = "events:append"),
      requestBody =
          @RequestBody(
              required = true,
              content = @Content(schema = @Schema(implementation = Json.AppendRequest.class))),
      responses = {
        @ApiResponse(
            responseCode = "201",
            description = "Appended",
            content = @Content(schema = @Schema(implementation = Json.AppendResponse.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "409", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "413", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "415", ref = "#/components/responses/Problem")
      })
  public Response append(
      @Parameter(
              description = "Makes retries safe: 1 to 255 visible ASCII characters, per token",
              in = ParameterIn.HEADER)
          @HeaderParam("Idempotency-Key")
          String idempotencyKey,
      @Parameter(hidden = true) @HeaderParam("Content-Length") String contentLength,
      @Parameter(hidden = true) InputStream body,
      // No swagger annotation here: Jersey hashes a context parameter's annotations on every
      // request, and OpenAPI skips context parameters anyway.
      @Context SecurityContext security,
      @Context HttpHeaders headers) {
    reader.requireKnownEncoding(headers.getRequestHeader("Content-Encoding"));
    Optional<String> key = IdempotencyKeyHeader.of(headers);
    if (contentLength != null
        && DIGITS.matcher(contentLength).matches()
        && declaredOverIntMax(contentLength)) {
      throw reader.tooLarge();
    }
    byte[] bytes = reader.readBody(body);
    AppendEvents.Answer answer =
        appendEvents.append(
            new AppendEvents.Command(
                security.getUserPrincipal().getName(),
                key,
                // Only a keyed request's row keeps the body's hash.
                key.isPresent() ? TokenHash.sha256(bytes) : new byte[0],
                reader.drafts(bytes),
                this::render));
    if (answer instanceof AppendEvents.Answer.KeyConflict) {
      throw IdempotencyKeyHeader.conflict("body");
    }
    if (answer instanceof AppendEvents.Answer.Replayed replayed) {
      return Response.status(replayed.status())
          .type(MediaType.APPLICATION_JSON)
          .header("Idempotent-Replayed", "true")
          .entity(replayed.body())
          .build();
    }
    return Response.status(AppendEvents.CREATED)
        .type(MediaType.APPLICATION_JSON)
        .entity(((AppendEvents.Answer.Created) answer).body())
        .build();
  }

  private String render(AppendReceipt receipt) {
    List<Json.Appended> appended = new ArrayList<>(receipt.ids().size());
    List<Long> seqs = receipt.seqs();
    for (int i = 0; i < seqs.size(); i++) {
      appended.add(new Json.Appended(receipt.ids().get(i).toString(), seqs.get(i)));
    }
    try {
      return mapper.writeValueAsString(new Json.AppendResponse(appended));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the append response is plain data", e);
    }
  }

  /**
   * Reads a page of events after a number.
   *
   * @param after the last number the client has
   * @param limit the most events to return
   * @param typeFilter keep only these types
   * @return the page, or {@code 410 resync_required} below the retention window
   */
  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @RequiresScope(Scope.EVENTS_READ)
  @Operation(
      summary = "Read the events after a number",
      description =
          "Returns up to limit events after the number, in order, and next_after for the next"
              + " page. With type, only events of those types come back, and next_after still"
              + " moves past the events read. Below the retention window: 410 resync_required.",
      security = @SecurityRequirement(name = "bearer", scopes = "events:read"),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "A page",
            content = @Content(schema = @Schema(implementation = Json.Page.class))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "410", ref = "#/components/responses/Problem")
      })
  public Json.Page read(
      @Parameter(
              description = "The last number the client has; 0 for the start",
              schema =
                  @Schema(type = "integer", format = "int64", minimum = "0", defaultValue = "0"))
          @QueryParam("after")
          String after,
      @Parameter(
              description =
                  "Most events to return, lowered to api.maxPageSize; default api.defaultPageSize",
              schema = @Schema(type = "integer", format = "int32", minimum = "1"))
          @QueryParam("limit")
          String limit,
      @Parameter(
              description = "Only events of these types",
              array = @ArraySchema(schema = @Schema(type = "string")))
          @QueryParam("type")
          List<String> typeFilter) {
    long afterSeq = after == null ? 0 : seq(after, "after");
    int size = limit == null ? defaultPageSize : pageSize(limit);
    Set<String> only = Set.copyOf(typeFilter == null ? List.of() : typeFilter);
    for (String t : only) {
      if (t.isEmpty()) {
        throw ApiProblem.of(
                ProblemType.INVALID_REQUEST,
                "type must name an event type; leave it out for every type.")
            .with("parameter", "type");
      }
      if (types.find(t).isEmpty()) {
        throw ApiProblem.of(
                ProblemType.UNKNOWN_EVENT_TYPE,
                "The event type " + ApiProblem.echo(t) + " is not registered.")
            .with("parameter", "type");
      }
    }
    ReadResult result = log.readAfter(afterSeq, size);
    if (result instanceof ReadResult.ResyncRequired resync) {
      throw resync(afterSeq, resync.minRetainedSeq());
    }
    ReadResult.Page page = (ReadResult.Page) result;
    return new Json.Page(
        page.events().stream()
            .filter(e -> only.isEmpty() || only.contains(e.type()))
            .map(Json.EventOut::of)
            .toList(),
        page.nextAfter());
  }

  /**
   * Follows the log as Server-Sent Events.
   *
   * @param after the last number the client has; without it and without Last-Event-ID the stream
   *     starts at the head
   * @param lastEventId the id of the last event received, sent by reconnecting clients; wins over
   *     {@code after}
   * @return the stream
   */
  @GET
  @Path("stream")
  @Produces("text/event-stream")
  @RequiresScope(Scope.EVENTS_READ)
  @Operation(
      summary = "Follow the log live (Server-Sent Events)",
      description =
          "The backlog after the number first, then live events; each event's id is its seq and"
              + " its data the Event JSON. A comment line every api.streamHeartbeat when idle."
              + " A client that falls behind the tail's buffer or the retention window gets an"
              + " event resync_required and the stream closes. Reconnect with Last-Event-ID.",
      security = @SecurityRequirement(name = "bearer", scopes = "events:read"),
      responses = {
        @ApiResponse(
            responseCode = "200",
            description = "The stream",
            content = @Content(mediaType = "text/event-stream", schema = @Schema(type = "string"))),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "410", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "503", ref = "#/components/responses/Problem")
      })
  public Response stream(
      @Parameter(
              description = "The last number the client has",
              schema = @Schema(type = "integer", format = "int64", minimum = "0"))
          @QueryParam("after")
          String after,
      @Parameter(
              description = "The last event id received; wins over after",
              in = ParameterIn.HEADER)
          @HeaderParam("Last-Event-ID")
          String lastEventId) {
    long afterSeq = streamStart(after, lastEventId);
    if (!streams.tryReserve()) {
      throw tooManyStreams();
    }
    return Response.ok(streams.open(afterSeq), "text/event-stream")
        .header("Cache-Control", "no-cache")
        .header("X-Accel-Buffering", "no")
        .build();
  }

  /**
   * Answers {@code HEAD} on the stream with the headers a {@code GET} would get and no body,
   * without taking one of the {@code api.maxStreams} places: Jersey would otherwise run the {@code
   * GET}, whose stream Jetty discards for a {@code HEAD}, so its writes never fail and the stream
   * never ends.
   *
   * @param after as for {@code GET}
   * @param lastEventId as for {@code GET}
   * @return {@code 200} with the stream's headers, or the problem a {@code GET} would get
   */
  @HEAD
  @Path("stream")
  @Produces("text/event-stream")
  @RequiresScope(Scope.EVENTS_READ)
  @Operation(
      summary = "Check the stream without opening it",
      description =
          "The status and headers a GET would get, with no body and without taking a place of"
              + " api.maxStreams: 503 too_many_streams when no place is free.",
      security = @SecurityRequirement(name = "bearer", scopes = "events:read"),
      responses = {
        @ApiResponse(responseCode = "200", description = "A GET would open the stream"),
        @ApiResponse(responseCode = "400", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "401", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "403", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "410", ref = "#/components/responses/Problem"),
        @ApiResponse(responseCode = "503", ref = "#/components/responses/Problem")
      })
  public Response streamHead(
      @Parameter(
              description = "The last number the client has",
              schema = @Schema(type = "integer", format = "int64", minimum = "0"))
          @QueryParam("after")
          String after,
      @Parameter(
              description = "The last event id received; wins over after",
              in = ParameterIn.HEADER)
          @HeaderParam("Last-Event-ID")
          String lastEventId) {
    streamStart(after, lastEventId);
    if (!streams.hasRoom()) {
      throw tooManyStreams();
    }
    return Response.ok()
        .type("text/event-stream")
        .header("Cache-Control", "no-cache")
        .header("X-Accel-Buffering", "no")
        .build();
  }

  private ApiProblem tooManyStreams() {
    return ApiProblem.of(
            ProblemType.TOO_MANY_STREAMS,
            "api.maxStreams streams are open in this process; retry after Retry-After seconds.")
        .withHeader("Retry-After", Long.toString(retryAfterSeconds));
  }

  /** Where a stream starts, or the problem of a bad position or one below the retained window. */
  private long streamStart(String after, String lastEventId) {
    long afterSeq;
    if (lastEventId != null) {
      afterSeq = seqHeader(lastEventId);
    } else if (after != null) {
      afterSeq = seq(after, "after");
    } else {
      afterSeq = log.head();
    }
    long min = log.minRetained();
    // Written as a subtraction: afterSeq + 1 overflows at the largest long, which is "nothing yet".
    if (min > 0 && afterSeq < min - 1) {
      throw resync(afterSeq, min);
    }
    return afterSeq;
  }

  private static ApiProblem resync(long after, long min) {
    return ApiProblem.of(
            ProblemType.RESYNC_REQUIRED,
            "The events after "
                + after
                + " are gone (sync.eventRetention); start again from a snapshot and read after "
                + (min - 1)
                + ".")
        .with("min_retained_seq", min);
  }

  private static long seq(String text, String parameter) {
    return number(
        text,
        () ->
            ApiProblem.of(
                    ProblemType.INVALID_REQUEST, parameter + " must be a number from 0 upwards.")
                .with("parameter", parameter),
        () ->
            ApiProblem.of(ProblemType.INVALID_REQUEST, parameter + " is too large.")
                .with("parameter", parameter));
  }

  private static long seqHeader(String text) {
    return number(
        text.strip(),
        () ->
            ApiProblem.of(ProblemType.INVALID_REQUEST, "Last-Event-ID must be the seq of an event.")
                .with("header", "Last-Event-ID"),
        () ->
            ApiProblem.of(ProblemType.INVALID_REQUEST, "Last-Event-ID is too large.")
                .with("header", "Last-Event-ID"));
  }

  /** Whether a {@code Content-Length} of digits only is over the largest int, without overflow. */
  private static boolean declaredOverIntMax(String digits) {
    String significant = digits.replaceFirst("^0+(?=.)", "");
    // Ten digits hold every int; more are over it whatever they say.
    return significant.length() > 10 || Long.parseLong(significant) > Integer.MAX_VALUE;
  }

  /** A number from 0 upwards, or the problem for text that is not one or one too large. */
  private static long number(
      String text, Supplier<ApiProblem> notANumber, Supplier<ApiProblem> tooLarge) {
    if (!DIGITS.matcher(text).matches()) {
      throw notANumber.get();
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw tooLarge.get();
    }
  }

  private int pageSize(String text) {
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
