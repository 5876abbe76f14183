package dev.bothy.bus.adapters.nats;

import dev.bothy.sync.Event;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;

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
