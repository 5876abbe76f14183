package dev.bothy.bus.domain;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The subject filter of a bus consumer's durable on {@code EVENTS}, by the server's version (issue
 * 19, item 7; D-NT-2). A server of 2.10 or newer takes several filter subjects on one consumer
 * ({@code filterSubjects}): the durable gets exactly its handlers' types, sorted, each once. A 2.9
 * server takes one: the durable gets the stream's common subject {@code bothy.events.>}, and
 * dispatch acks every type none of the consumer's handlers takes. The common subject even for a
 * one-type consumer: one rule whatever the number of types, so a 2.9 durable's filter never changes
 * when a handler is added (the cost is a read and an ack per message of another type).
 *
 * @param subjects the filter subjects to declare, one or more
 * @param exact true when the server delivers only handled types; false when dispatch must ack the
 *     others
 */
public record ConsumerFilters(List<String> subjects, boolean exact) {
  private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)(\\..*)?");

  /** Copies the subjects. */
  public ConsumerFilters {
    subjects = List.copyOf(subjects);
  }

  /**
   * Chooses the filter of a durable.
   *
   * @param serverVersion the connected server's version, such as {@code 2.9.10}
   * @param eventTypes the types the consumer's handlers take, possibly repeated
   * @param commonSubject the stream's subject filter ({@code Streams.EVENT_SUBJECTS})
   * @param subjectOf the subject of one type ({@code Streams::subjectOf})
   * @return the filter
   * @throws IllegalArgumentException for no type, or a version this cannot read
   */
  public static ConsumerFilters of(
      String serverVersion,
      Collection<String> eventTypes,
      String commonSubject,
      UnaryOperator<String> subjectOf) {
    Objects.requireNonNull(eventTypes, "eventTypes");
    if (eventTypes.isEmpty()) {
      throw new IllegalArgumentException("a bus consumer takes at least one event type");
    }
    if (!atLeast(serverVersion, 2, 10)) {
      return new ConsumerFilters(List.of(commonSubject), false);
    }
    TreeSet<String> subjects = new TreeSet<>();
    for (String type : eventTypes) {
      subjects.add(subjectOf.apply(type));
    }
    return new ConsumerFilters(List.copyOf(subjects), true);
  }

  /**
   * Whether a server version is at least {@code major.minor}.
   *
   * @param serverVersion such as {@code 2.10.0} or {@code v2.9.10}
   * @param major the major version
   * @param minor the minor version
   * @return true when the version is the same or newer
   * @throws IllegalArgumentException when the version does not start with numbers
   */
  public static boolean atLeast(String serverVersion, int major, int minor) {
    Matcher m = VERSION.matcher(Objects.requireNonNull(serverVersion, "serverVersion").trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a NATS server version: " + serverVersion);
    }
    int haveMajor = Integer.parseInt(m.group(1));
    int haveMinor = Integer.parseInt(m.group(2));
    return haveMajor > major || (haveMajor == major && haveMinor >= minor);
  }
}
