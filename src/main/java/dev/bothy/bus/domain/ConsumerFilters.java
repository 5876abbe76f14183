package dev.bothy.bus.domain;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The subject filter of a bus consumer's durable on {@code EVENTS}, by the server's version (issue
 * 19, item 7; D-NT-2, D-NT-10). A server of 2.10 or newer takes several filter subjects on one
 * consumer ({@code filterSubjects}): the durable gets exactly its handlers' types, sorted, each
 * once. A 2.9 server takes one: a one-type consumer gets its type's subject, exact as on 2.10; a
 * consumer of several types gets the narrowest wildcard over them ({@code bothy.events.system.>}
 * for {@code system.pinged} and {@code system.echoed}, the stream's common subject {@code
 * bothy.events.>} across modules), and dispatch acks every type under it none of the consumer's
 * handlers takes. The filter changes when a handler of a new type is added; a 2.9.10 server accepts
 * that update of the durable, in both directions, keeping its position.
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
    boolean several = atLeast(serverVersion, 2, 10);
    TreeSet<String> subjects = new TreeSet<>();
    for (String type : eventTypes) {
      subjects.add(subjectOf.apply(type));
    }
    if (several || subjects.size() == 1) {
      return new ConsumerFilters(List.copyOf(subjects), true);
    }
    return new ConsumerFilters(List.of(narrowestWildcard(subjects, commonSubject)), false);
  }

  /**
   * The wildcard of the longest token prefix the subjects share, shorter than each of them ({@code
   * >} matches one token or more), and never wider than the stream's common subject.
   */
  private static String narrowestWildcard(TreeSet<String> subjects, String commonSubject) {
    // In sorted order the first and the last subject differ the most: their shared tokens are
    // everyone's.
    String[] first = subjects.first().split("\\.");
    String[] last = subjects.last().split("\\.");
    int shortest = Integer.MAX_VALUE;
    for (String subject : subjects) {
      shortest = Math.min(shortest, subject.split("\\.").length);
    }
    int shared = 0;
    while (shared < shortest - 1 && first[shared].equals(last[shared])) {
      shared++;
    }
    String wildcard = String.join(".", Arrays.copyOf(first, shared)) + ".>";
    return wildcard.length() < commonSubject.length() ? commonSubject : wildcard;
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
