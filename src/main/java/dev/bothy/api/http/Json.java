package dev.bothy.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Event;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of the API: snake_case members, ids as UUID strings, times as ISO-8601 UTC
 * strings. The request shapes document {@code POST /v1/events} in the OpenAPI document; the body is
 * read by {@link AppendRequestReader}, which checks every member with its JSON pointer.
 */
public final class Json {
  private Json() {}

  /**
   * The body of {@code POST /v1/events}.
   *
   * @param events the events, appended in this order in one unit
   */
  @Schema(name = "AppendRequest")
  public record AppendRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              description = "1 to api.maxEventsPerRequest events")
          List<EventInput> events) {}

  /**
   * One event to append.
   *
   * @param type a registered event type
   * @param resource the resource, of the type's resource type
   * @param actor who caused it, when someone did
   * @param payload the payload, as the type's payload record
   */
  @Schema(name = "EventInput")
  public record EventInput(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "settings.updated")
          String type,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Resource resource,
      @Schema(nullable = true, format = "uuid") String actor,
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              type = "object",
              description = "The type's payload: its fields and their values, any JSON",
              additionalProperties = Schema.AdditionalPropertiesValue.TRUE,
              example = "{\"changedKeys\":[\"locale\"]}")
          Map<String, Object> payload) {}

  /**
   * The resource an event is about.
   *
   * @param type the resource type
   * @param id its UUID
   */
  @Schema(name = "Resource")
  public record Resource(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "user") String type,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, format = "uuid") String id) {}

  /**
   * The answer to {@code POST /v1/events}.
   *
   * @param events the appended events in request order
   */
  @Schema(name = "AppendResponse")
  public record AppendResponse(List<Appended> events) {}

  /**
   * One appended event.
   *
   * @param id its id
   * @param seq its number
   */
  @Schema(name = "Appended")
  public record Appended(@Schema(format = "uuid") String id, long seq) {}

  /**
   * A stored event, as pages and streams show it.
   *
   * @param seq its number
   * @param id its id
   * @param type its type
   * @param occurredAt when it was appended
   * @param resource the resource
   * @param actor who caused it, or null
   * @param payload the payload JSON as stored
   */
  @Schema(name = "Event")
  @JsonPropertyOrder({"seq", "id", "type", "occurred_at", "resource", "actor", "payload"})
  public record EventOut(
      long seq,
      @Schema(format = "uuid") String id,
      String type,
      @JsonProperty("occurred_at") @Schema(format = "date-time") String occurredAt,
      Resource resource,
      @JsonInclude(JsonInclude.Include.ALWAYS) @Schema(nullable = true, format = "uuid")
          String actor,
      @JsonRawValue
          @Schema(
              implementation = Object.class,
              description = "The payload record of the type, as stored")
          String payload) {

    /**
     * Shows a stored event.
     *
     * @param e the event
     * @return its JSON shape
     */
    public static EventOut of(Event e) {
      return new EventOut(
          e.seq(),
          e.id().toString(),
          e.type(),
          e.occurredAt().toString(),
          new Resource(e.resource().type(), e.resource().id().toString()),
          e.actorId().map(Object::toString).orElse(null),
          e.payload());
    }
  }

  /**
   * A page of {@code GET /v1/events}.
   *
   * @param events the events, in order
   * @param nextAfter the {@code after} of the next page
   */
  @Schema(name = "EventPage")
  public record Page(List<EventOut> events, @JsonProperty("next_after") long nextAfter) {}

  /**
   * Where a worker consumer stands.
   *
   * @param name its name
   * @param lastSeq the last number it processed
   * @param headSeq the head when read
   * @param lag events it has not processed
   * @param oldestPendingAgeSeconds the age of its oldest unprocessed event, null at the head
   * @param updatedAt when its cursor last moved
   */
  @Schema(name = "Consumer")
  @JsonPropertyOrder({
    "name",
    "last_seq",
    "head_seq",
    "lag",
    "oldest_pending_age_seconds",
    "updated_at"
  })
  public record Consumer(
      String name,
      @JsonProperty("last_seq") long lastSeq,
      @JsonProperty("head_seq") long headSeq,
      long lag,
      @JsonProperty("oldest_pending_age_seconds")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true)
          Double oldestPendingAgeSeconds,
      @JsonProperty("updated_at") @Schema(format = "date-time") String updatedAt) {

    /**
     * Shows a consumer state.
     *
     * @param s the state
     * @param now the time its pending age is measured at
     * @return its JSON shape
     */
    public static Consumer of(ConsumerState s, Instant now) {
      return new Consumer(
          s.name().value(),
          s.lastSeq(),
          s.headSeq(),
          s.lag(),
          s.oldestPendingAt()
              .map(at -> Math.max(0, java.time.Duration.between(at, now).toMillis()) / 1000.0)
              .orElse(null),
          s.updatedAt().toString());
    }
  }

  /**
   * The answer to {@code GET /v1/consumers}.
   *
   * @param consumers one per cursor row, by name
   */
  @Schema(name = "Consumers")
  public record Consumers(List<Consumer> consumers) {}

  /**
   * A problem document (RFC 9457), for the OpenAPI document.
   *
   * @param type the stable problem type
   * @param title the type's title
   * @param status the HTTP status
   * @param detail what happened here
   * @param instance the request path
   * @param pointer the JSON pointer of the offending body member, when there is one
   * @param parameter the query parameter at fault, when there is one
   * @param header the request header at fault, when there is one
   * @param limit the configuration key of the limit the request went over, when there is one
   * @param reason with {@code webhook_target_refused}: the code of the rule that refused the target
   * @param minRetainedSeq with {@code resync_required}: the smallest number the log holds
   */
  @Schema(name = "Problem")
  public record Problem(
      @Schema(example = "invalid_request") String type,
      String title,
      int status,
      String detail,
      String instance,
      @Schema(example = "/events/0/type") String pointer,
      @Schema(example = "after") String parameter,
      @Schema(example = "Last-Event-ID") String header,
      @Schema(example = "api.maxJsonDepth") String limit,
      @Schema(example = "plain_http") String reason,
      @JsonProperty("min_retained_seq") Long minRetainedSeq) {}

  /**
   * Reads a node's text when it is a string.
   *
   * @param node the node, possibly null
   * @return the text, or null when the node is missing or not a string
   */
  static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.asText() : null;
  }
}
