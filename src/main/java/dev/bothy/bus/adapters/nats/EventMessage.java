package dev.bothy.bus.adapters.nats;

import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.UUID;

/**
 * How an event travels on the stream: the body is the event as {@code GET /v1/events} shows it
 * (seq, id, type, occurred_at, resource, actor, payload as stored); the headers carry {@value
 * #BOTHY_SEQ} and, when the event has one, {@value #TRACEPARENT}. {@code Nats-Msg-Id} is set by the
 * publish options.
 */
public final class EventMessage {
  /** The header with the event's number in the log. */
  public static final String BOTHY_SEQ = "Bothy-Seq";

  /** The W3C trace context header of the unit that appended the event. */
  public static final String TRACEPARENT = "traceparent";

  private EventMessage() {}

  /**
   * Returns the headers of an event.
   *
   * @param event the event
   * @return {@code Bothy-Seq} and, when present, {@code traceparent}
   */
  public static Headers headers(Event event) {
    Headers headers = new Headers();
    headers.put(BOTHY_SEQ, Long.toString(event.seq()));
    event.traceparent().ifPresent(t -> headers.put(TRACEPARENT, t));
    return headers;
  }

  /**
   * Returns the body of an event, UTF-8 JSON.
   *
   * @param event the event
   * @return the body
   */
  public static byte[] body(Event event) {
    StringBuilder json = new StringBuilder(event.payload().length() + 256);
    json.append("{\"seq\":").append(event.seq());
    json.append(",\"id\":\"").append(event.id()).append('"');
    json.append(",\"type\":");
    string(json, event.type());
    json.append(",\"occurred_at\":\"").append(event.occurredAt()).append('"');
    json.append(",\"resource\":{\"type\":");
    string(json, event.resource().type());
    json.append(",\"id\":\"").append(event.resource().id()).append("\"}");
    json.append(",\"actor\":");
    if (event.actorId().isPresent()) {
      json.append('"').append(event.actorId().get()).append('"');
    } else {
      json.append("null");
    }
    // The payload is the stored jsonb's text: JSON already.
    json.append(",\"payload\":").append(event.payload()).append('}');
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads an event back from a body {@link #body} wrote, the inverse of it: the fields in their
   * written order and the payload as the stored text, byte for byte.
   *
   * @param body the message's body
   * @param traceparent the message's {@value #TRACEPARENT} header, or null
   * @return the event, or empty when the body is not one {@link #body} writes (the message is not
   *     an event of the log)
   */
  public static Optional<Event> parse(byte[] body, String traceparent) {
    try {
      Reader r = new Reader(new String(body, StandardCharsets.UTF_8));
      r.expect("{\"seq\":");
      long seq = Long.parseLong(r.until(','));
      r.expect(",\"id\":");
      UUID id = UUID.fromString(r.string());
      r.expect(",\"type\":");
      String type = r.string();
      r.expect(",\"occurred_at\":");
      Instant occurredAt = Instant.parse(r.string());
      r.expect(",\"resource\":{\"type\":");
      String resourceType = r.string();
      r.expect(",\"id\":");
      UUID resourceId = UUID.fromString(r.string());
      r.expect("},\"actor\":");
      Optional<UUID> actor =
          r.skipIf("null") ? Optional.empty() : Optional.of(UUID.fromString(r.string()));
      r.expect(",\"payload\":");
      String payload = r.restBeforeLast('}');
      return Optional.of(
          new Event(
              seq,
              id,
              type,
              occurredAt,
              new ResourceRef(resourceType, resourceId),
              actor,
              payload,
              Optional.ofNullable(traceparent)));
    } catch (IllegalArgumentException | DateTimeParseException | IndexOutOfBoundsException e) {
      return Optional.empty();
    }
  }

  /** A cursor over a body; every mismatch is an {@link IllegalArgumentException}. */
  private static final class Reader {
    private final String text;
    private int at;

    Reader(String text) {
      this.text = text;
    }

    void expect(String literal) {
      if (!text.startsWith(literal, at)) {
        throw new IllegalArgumentException("not an event message");
      }
      at += literal.length();
    }

    boolean skipIf(String literal) {
      if (text.startsWith(literal, at)) {
        at += literal.length();
        return true;
      }
      return false;
    }

    String until(char end) {
      int stop = text.indexOf(end, at);
      if (stop < 0) {
        throw new IllegalArgumentException("not an event message");
      }
      String part = text.substring(at, stop);
      at = stop;
      return part;
    }

    /** A JSON string as {@link EventMessage#string} writes it. */
    String string() {
      expect("\"");
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          char e = text.charAt(at++);
          if (e == 'u') {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          } else if (e == '"' || e == '\\') {
            out.append(e);
          } else {
            throw new IllegalArgumentException("not an event message");
          }
        } else {
          out.append(c);
        }
      }
    }

    String restBeforeLast(char last) {
      if (text.isEmpty() || text.charAt(text.length() - 1) != last || text.length() - 1 <= at) {
        throw new IllegalArgumentException("not an event message");
      }
      return text.substring(at, text.length() - 1);
    }
  }

  private static void string(StringBuilder json, String value) {
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format("\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    json.append('"');
  }
}
