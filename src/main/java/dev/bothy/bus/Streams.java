package dev.bothy.bus;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The one place Bothy's JetStream streams and their subjects are declared (DESIGN.md section 14).
 * Today there is one stream, {@value #EVENTS}: every committed event of the log, on the subject
 * {@code bothy.events.<type>}. The bus creates, updates or verifies it at start; no other code
 * creates a stream, and a module's consumer is a durable on this stream, never a stream of its own.
 */
public final class Streams {
  /** The name of the stream of the event log. */
  public static final String EVENTS = "EVENTS";

  /** The prefix of every event subject; the event type follows it. */
  public static final String EVENT_SUBJECT_PREFIX = "bothy.events.";

  /** The subject filter of {@value #EVENTS}: every event type. */
  public static final String EVENT_SUBJECTS = EVENT_SUBJECT_PREFIX + ">";

  /**
   * Room for what a published message carries beyond the event's payload: the headers ({@code
   * Nats-Msg-Id}, {@code Bothy-Seq}, {@code traceparent}) and the event's own fields around the
   * payload (id, type, resource, times). An event type name and a resource reference are short
   * (tens of bytes); 4 KiB leaves a wide margin for headers added later.
   */
  public static final int HEADER_ROOM_BYTES = 4096;

  /** How a declared stream stores its messages. */
  public enum Storage {
    /** On disk: survives a restart of the server. */
    FILE
  }

  /**
   * A declared stream: the fields Bothy sets, creates, updates and verifies.
   *
   * @param name the stream's name
   * @param subjects its subject filters
   * @param storage its storage
   * @param replicas {@code bus.nats.stream.replicas}
   * @param maxAge {@code bus.nats.stream.maxAge}
   * @param duplicateWindow {@code bus.nats.stream.duplicateWindow}
   * @param maxMessageBytes {@code sync.maxPayloadBytes} plus {@link #HEADER_ROOM_BYTES}
   */
  public record Declared(
      String name,
      List<String> subjects,
      Storage storage,
      int replicas,
      Duration maxAge,
      Duration duplicateWindow,
      int maxMessageBytes) {
    /** Checks the fields and copies the subjects. */
    public Declared {
      Objects.requireNonNull(name, "name");
      subjects = List.copyOf(subjects);
      Objects.requireNonNull(storage, "storage");
      Objects.requireNonNull(maxAge, "maxAge");
      Objects.requireNonNull(duplicateWindow, "duplicateWindow");
    }
  }

  // Compiled once: the relay asks for a subject per event, and String.matches compiles its
  // pattern on every call (a twelfth of the relay thread's time in bench/run.sh bus-relay).
  private static final Pattern EVENT_TYPE = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+");

  private Streams() {}

  /**
   * Returns the subject of an event type: {@code bothy.events.<type>}. Event type names are dotted
   * lower case ({@code settings.updated}), so each dot starts a subject token and a consumer may
   * filter on a type or, with a wildcard, on a group of types.
   *
   * @param eventType the event type's name
   * @return its subject
   * @throws IllegalArgumentException when the name is not a valid event type name
   */
  public static String subjectOf(String eventType) {
    Objects.requireNonNull(eventType, "eventType");
    if (!EVENT_TYPE.matcher(eventType).matches()) {
      throw new IllegalArgumentException("not an event type name (dotted lower case)");
    }
    return EVENT_SUBJECT_PREFIX + eventType;
  }

  /**
   * Returns the largest message the streams accept: the append limit plus the room for headers.
   *
   * @param settings the stream settings
   * @return bytes
   */
  public static int maxMessageBytes(StreamSettings settings) {
    return settings.maxPayloadBytes() + HEADER_ROOM_BYTES;
  }

  /**
   * Returns the declaration of {@value #EVENTS}.
   *
   * @param settings the stream settings
   * @return the declared stream
   */
  public static Declared events(StreamSettings settings) {
    return new Declared(
        EVENTS,
        List.of(EVENT_SUBJECTS),
        Storage.FILE,
        settings.replicas(),
        settings.maxAge(),
        settings.duplicateWindow(),
        maxMessageBytes(settings));
  }

  /**
   * Returns every declared stream, in the order the bus ensures them.
   *
   * @param settings the stream settings
   * @return the streams
   */
  public static List<Declared> all(StreamSettings settings) {
    return List.of(events(settings));
  }
}
