package dev.bothy.api.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.Ids;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ResourceRef;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.zip.ZipException;

/**
 * Reads and checks the body of {@code POST /v1/events} before anything is appended: at most {@code
 * api.maxRequestBytes} bytes, JSON, the shape of {@link Json.AppendRequest}, at most {@code
 * api.maxEventsPerRequest} events, registered types, resources of the type's resource type, and
 * payloads that are the type's payload record within {@code sync.maxPayloadBytes}, all read
 * strictly ({@link StrictJson}: exact types, valid Unicode without U+0000, UUIDs in their canonical
 * form). Each problem names the offending member by its JSON pointer.
 */
final class AppendRequestReader {
  private static final Set<String> ROOT_MEMBERS = Set.of("events");
  private static final Set<String> EVENT_MEMBERS = Set.of("type", "resource", "actor", "payload");
  private static final Set<String> RESOURCE_MEMBERS = Set.of("type", "id");

  private final StrictJson json;
  private final ObjectMapper mapper;
  private final EventTypes types;
  private final int maxRequestBytes;
  private final int maxEvents;
  private final long maxPayloadBytes;

  AppendRequestReader(
      StrictJson json, EventTypes types, int maxRequestBytes, int maxEvents, long maxPayloadBytes) {
    this.json = json;
    this.mapper = json.mapper();
    this.types = types;
    this.maxRequestBytes = maxRequestBytes;
    this.maxEvents = maxEvents;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * Checks the body's {@code Content-Encoding} before it is read. Jetty inflates {@code gzip} and
   * then removes the header, so a header that reaches here names a coding nobody decodes.
   *
   * @param encodings the values of {@code Content-Encoding}, null or empty when none was sent
   * @throws ApiProblem {@code unsupported_media_type} for any coding but {@code identity}
   */
  void requireKnownEncoding(List<String> encodings) {
    if (encodings == null) {
      return;
    }
    for (String value : encodings) {
      for (String coding : value.split(",")) {
        if (!coding.isBlank() && !coding.strip().equalsIgnoreCase("identity")) {
          throw ApiProblem.of(
                  ProblemType.UNSUPPORTED_MEDIA_TYPE,
                  "Send the body uncompressed or with Content-Encoding: gzip.")
              .with("header", "Content-Encoding")
              .withHeader("Accept-Encoding", "gzip");
        }
      }
    }
  }

  /**
   * Reads the body, refusing more than {@code api.maxRequestBytes} without reading further.
   *
   * @param body the request body
   * @return its bytes
   * @throws ApiProblem {@code payload_too_large} over the limit
   */
  byte[] readBody(InputStream body) {
    if (body == null) {
      return new byte[0];
    }
    try {
      byte[] bytes = body.readNBytes(maxRequestBytes + 1);
      if (bytes.length > maxRequestBytes) {
        throw tooLarge();
      }
      return bytes;
    } catch (IOException e) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "The body could not be read to its end.");
    } catch (RuntimeException e) {
      // Jetty's gzip decoder throws unchecked for bytes that are no gzip.
      if (causedByZip(e)) {
        throw ApiProblem.of(
                ProblemType.INVALID_REQUEST, "The body is not valid gzip (Content-Encoding: gzip).")
            .with("header", "Content-Encoding");
      }
      throw e;
    }
  }

  private static boolean causedByZip(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ZipException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The problem of a body over {@code api.maxRequestBytes}.
   *
   * @return the problem
   */
  ApiProblem tooLarge() {
    return ApiProblem.of(
            ProblemType.PAYLOAD_TOO_LARGE,
            "The body is larger than api.maxRequestBytes (" + maxRequestBytes + " bytes).")
        .with("limit", "api.maxRequestBytes");
  }

  /**
   * Parses and checks the body.
   *
   * @param bytes the body
   * @return the drafts, in order
   * @throws ApiProblem for the first problem found
   */
  List<EventDraft> drafts(byte[] bytes) {
    JsonNode root = json.readTree(bytes);
    if (root == null || root.isMissingNode()) {
      throw ApiProblem.of(
          ProblemType.INVALID_REQUEST, "The body is empty; send {\"events\": [...]}.");
    }
    // Before any other check, so a U+0000 or a lone surrogate anywhere is refused with its pointer
    // and never reaches a detail, a log line or the database.
    StrictJson.requireValidText(root, "");
    requireObject(root, "");
    onlyMembers(root, "", ROOT_MEMBERS);
    JsonNode events = root.get("events");
    if (events == null || !events.isArray()) {
      throw ApiProblem.at(ProblemType.INVALID_REQUEST, "/events", "events must be an array.");
    }
    if (events.isEmpty()) {
      throw ApiProblem.at(ProblemType.INVALID_REQUEST, "/events", "events holds no event.");
    }
    if (events.size() > maxEvents) {
      throw ApiProblem.at(
              ProblemType.INVALID_REQUEST,
              "/events",
              "events holds more than api.maxEventsPerRequest (" + maxEvents + ") events.")
          .with("limit", "api.maxEventsPerRequest");
    }
    List<EventDraft> drafts = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      drafts.add(draft(events.get(i), "/events/" + i));
    }
    return drafts;
  }

  private EventDraft draft(JsonNode event, String at) {
    requireObject(event, at);
    onlyMembers(event, at, EVENT_MEMBERS);
    String typeName = requireText(event, at, "type");
    EventType<?> type =
        types
            .find(typeName)
            .orElseThrow(
                () ->
                    ApiProblem.at(
                        ProblemType.UNKNOWN_EVENT_TYPE,
                        at + "/type",
                        "The event type "
                            + ApiProblem.echo(typeName)
                            + " is not registered; see docs/reference/events.md."));
    if (type.origin() != EventType.Origin.API) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST,
          at + "/type",
          "The event type "
              + type.name()
              + " is appended by its module only, with the change it reports; see"
              + " docs/reference/events.md for the types clients append.");
    }
    JsonNode resource = event.get("resource");
    if (resource == null || !resource.isObject()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, at + "/resource", "resource must be an object.");
    }
    onlyMembers(resource, at + "/resource", RESOURCE_MEMBERS);
    String resourceType = requireText(resource, at + "/resource", "type");
    if (!resourceType.equals(type.resourceType())) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST,
          at + "/resource/type",
          "Events of type " + type.name() + " are about a " + type.resourceType() + ".");
    }
    UUID resourceId = uuid(resource.get("id"), at + "/resource/id", false).orElseThrow();
    Optional<UUID> actor = uuid(event.get("actor"), at + "/actor", true);
    JsonNode payload = event.get("payload");
    if (payload == null || !payload.isObject()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, at + "/payload", "payload must be an object.");
    }
    Object record = payloadRecord(payload, type, at + "/payload");
    return new EventDraft(type.name(), new ResourceRef(resourceType, resourceId), actor, record);
  }

  private Object payloadRecord(JsonNode payload, EventType<?> type, String at) {
    Object record;
    try {
      record = mapper.treeToValue(payload, type.payloadType());
    } catch (JacksonException | IllegalArgumentException e) {
      String where = at;
      if (e instanceof JsonMappingException mapping) {
        for (JsonMappingException.Reference ref : mapping.getPath()) {
          where +=
              "/"
                  + (ref.getFieldName() != null
                      ? StrictJson.pointerSegment(ref.getFieldName())
                      : ref.getIndex());
        }
      }
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST,
          where,
          "The payload is not a " + type.name() + " payload; see docs/reference/events.md.");
    }
    try {
      int size = mapper.writeValueAsBytes(record).length;
      if (size > maxPayloadBytes) {
        throw ApiProblem.at(
                ProblemType.PAYLOAD_TOO_LARGE,
                at,
                "The payload is larger than sync.maxPayloadBytes (" + maxPayloadBytes + " bytes).")
            .with("limit", "sync.maxPayloadBytes");
      }
    } catch (JacksonException e) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, at, "The payload cannot be written as JSON.");
    }
    return record;
  }

  private static void requireObject(JsonNode node, String at) {
    if (!node.isObject()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, at.isEmpty() ? "" : at, "Expected a JSON object here.");
    }
  }

  private static void onlyMembers(JsonNode node, String at, Set<String> allowed) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw ApiProblem.at(
            ProblemType.INVALID_REQUEST,
            at + "/" + StrictJson.pointerSegment(name),
            "Unknown member; allowed here: "
                + String.join(", ", allowed.stream().sorted().toList())
                + ".");
      }
    }
  }

  private static String requireText(JsonNode node, String at, String member) {
    String text = Json.text(node.get(member));
    if (text == null || text.isBlank()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, at + "/" + member, member + " must be a non-empty string.");
    }
    return text;
  }

  private static Optional<UUID> uuid(JsonNode node, String at, boolean optional) {
    if (node == null || node.isNull()) {
      if (optional) {
        return Optional.empty();
      }
      throw ApiProblem.at(ProblemType.INVALID_REQUEST, at, "A UUID is required here.");
    }
    UUID id =
        Ids.parse(Json.text(node))
            .orElseThrow(
                () ->
                    ApiProblem.at(
                        ProblemType.INVALID_REQUEST,
                        at,
                        "Expected a UUID string: 8-4-4-4-12 hexadecimal digits with hyphens."));
    return Optional.of(id);
  }
}
