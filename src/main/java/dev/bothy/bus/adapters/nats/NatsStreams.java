package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.Streams;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.ServerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the streams of {@link Streams} on the server at start, the only code that creates or changes
 * a stream: with {@code bus.nats.manageStreams} it creates a missing stream and updates one that
 * differs (keeping the fields Bothy does not declare); without it, it only verifies and fails the
 * start naming every field that differs. Before any of that it checks that the largest message fits
 * the server's {@code max_payload}.
 */
public final class NatsStreams {
  private static final Logger LOG = LoggerFactory.getLogger(NatsStreams.class);

  /** JetStream's API error code for "stream not found". */
  static final int STREAM_NOT_FOUND = 10059;

  private NatsStreams() {}

  /**
   * Checks that a declared stream's largest message fits the server's {@code max_payload}: an event
   * the log accepts must never be too large for NATS, or it would wedge the relay.
   *
   * @param server the connected server's info
   * @param declared the declared stream
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   * @throws BothyException invalid, naming both values and keys, when it does not fit
   */
  public static void checkFits(ServerInfo server, Streams.Declared declared, int maxPayloadBytes) {
    long serverMax = server.getMaxPayload();
    if (declared.maxMessageBytes() > serverMax) {
      throw BothyException.invalid(
          "sync.maxPayloadBytes ("
              + maxPayloadBytes
              + ") plus the bus's header room ("
              + Streams.HEADER_ROOM_BYTES
              + ") is "
              + declared.maxMessageBytes()
              + " bytes, more than the NATS server's max_payload ("
              + serverMax
              + " bytes): raise max_payload in the server's configuration or lower"
              + " sync.maxPayloadBytes");
    }
  }

  /**
   * Creates, updates or verifies a declared stream.
   *
   * @param jsm the JetStream management context of the connection
   * @param declared the declared stream
   * @param manage {@code bus.nats.manageStreams}
   * @return what was done
   * @throws BothyException invalid when the stream is missing or differs and {@code manage} is
   *     false, or when a difference cannot be updated; unavailable when the server cannot be asked
   */
  public static Outcome ensure(JetStreamManagement jsm, Streams.Declared declared, boolean manage) {
    try {
      StreamInfo existing = existing(jsm, declared.name());
      if (existing == null) {
        if (!manage) {
          throw BothyException.invalid(
              "stream "
                  + declared.name()
                  + " does not exist and bus.nats.manageStreams is false: create it as the bus"
                  + " README declares it, or set bus.nats.manageStreams to true");
        }
        try {
          jsm.addStream(configuration(StreamConfiguration.builder(), declared));
        } catch (JetStreamApiException e) {
          throw BothyException.invalid(
              "stream "
                  + declared.name()
                  + " could not be created as declared (bus.nats.stream.*): the server answered "
                  + e.getApiErrorCode()
                  + " "
                  + e.getErrorDescription());
        }
        LOG.info("nats stream created: stream={}", declared.name());
        return Outcome.CREATED;
      }
      List<String> differences = differences(existing.getConfiguration(), declared);
      if (differences.isEmpty()) {
        LOG.info("nats stream as declared: stream={}", declared.name());
        return Outcome.UNCHANGED;
      }
      if (!manage) {
        throw BothyException.invalid(
            "stream "
                + declared.name()
                + " differs from its declaration and bus.nats.manageStreams is false: "
                + String.join("; ", differences)
                + ". Change the stream, or the keys named, or set bus.nats.manageStreams to"
                + " true");
      }
      List<String> fixed = immutable(existing.getConfiguration(), declared);
      if (!fixed.isEmpty()) {
        throw BothyException.invalid(
            "stream "
                + declared.name()
                + " differs from its declaration in what a stream cannot change: "
                + String.join("; ", fixed)
                + ". Move its messages to a new stream, or delete it (its events are republished"
                + " from the log within sync.eventRetention)");
      }
      try {
        jsm.updateStream(
            configuration(StreamConfiguration.builder(existing.getConfiguration()), declared));
      } catch (JetStreamApiException e) {
        throw BothyException.invalid(
            "stream "
                + declared.name()
                + " could not be updated to its declaration ("
                + String.join("; ", differences)
                + "): the server answered "
                + e.getApiErrorCode()
                + " "
                + e.getErrorDescription());
      }
      LOG.info("nats stream updated: stream={} fields={}", declared.name(), fields(differences));
      return Outcome.UPDATED;
    } catch (IOException | JetStreamApiException e) {
      throw BothyException.unavailable(
          "cannot read or write stream " + declared.name() + " on the NATS server of bus.nats.url",
          ErrorFields.redacted(e));
    }
  }

  /**
   * Checks that a stream is this installation's, marking an unmarked one when Bothy manages
   * streams. The mark is the stream's description ({@value #MARK} and the instance record's id).
   * Two installations (two databases) on one stream would take each other's messages through the
   * shared durables, so a stream marked as another installation's fails the start. A stream created
   * before the mark is marked by the first installation that starts with this check.
   *
   * @param jsm the JetStream management context of the connection
   * @param stream the stream's name
   * @param installation the instance record's id
   * @param manage {@code bus.nats.manageStreams}: without it an unmarked stream is only reported
   * @throws BothyException invalid when the stream is another installation's; unavailable when the
   *     server cannot be asked
   */
  public static void claim(
      JetStreamManagement jsm, String stream, UUID installation, boolean manage) {
    String mine = MARK + installation;
    try {
      StreamConfiguration configuration = jsm.getStreamInfo(stream).getConfiguration();
      String description = configuration.getDescription();
      if (mine.equals(description)) {
        return;
      }
      if (description != null && description.startsWith(MARK)) {
        throw BothyException.invalid(
            "stream "
                + stream
                + " on the NATS server of bus.nats.url belongs to another Bothy installation ("
                + description.substring(MARK.length())
                + "), and this database is installation "
                + installation
                + ": two installations on one stream take each other's messages. Give this one a"
                + " NATS server or account of its own (bus.nats.url, bus.nats.token or"
                + " bus.nats.credsFile), or, if that installation is gone for good (its database"
                + " deleted), delete the stream and start again; see"
                + " docs/operations/bus-relay.md");
      }
      if (!manage) {
        LOG.warn(
            "nats stream not marked as this installation's, bus.nats.manageStreams is false:"
                + " stream={} expected_description=\"{}\"",
            stream,
            mine);
        return;
      }
      jsm.updateStream(StreamConfiguration.builder(configuration).description(mine).build());
      LOG.info(
          "nats stream marked as this installation's: stream={} description=\"{}\"", stream, mine);
    } catch (IOException | JetStreamApiException e) {
      throw BothyException.unavailable(
          "cannot read or mark stream " + stream + " on the NATS server of bus.nats.url",
          ErrorFields.redacted(e));
    }
  }

  /** The start of a stream's description that marks it as one installation's. */
  public static final String MARK = "Bothy event log of installation ";

  /** What {@link #ensure} did. */
  public enum Outcome {
    /** The stream did not exist and was created. */
    CREATED,
    /** The stream differed and was updated. */
    UPDATED,
    /** The stream was as declared. */
    UNCHANGED
  }

  private static StreamInfo existing(JetStreamManagement jsm, String name)
      throws IOException, JetStreamApiException {
    try {
      return jsm.getStreamInfo(name);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** Sets the declared fields on a builder, keeping whatever else it holds. */
  static StreamConfiguration configuration(
      StreamConfiguration.Builder builder, Streams.Declared declared) {
    return builder
        .name(declared.name())
        .subjects(declared.subjects())
        .retentionPolicy(RetentionPolicy.Limits)
        .storageType(storage(declared.storage()))
        .replicas(declared.replicas())
        .maxAge(declared.maxAge())
        .duplicateWindow(declared.duplicateWindow())
        .maximumMessageSize(declared.maxMessageBytes())
        .build();
  }

  /**
   * Returns each declared field that differs, as {@code field is X, declared Y (key)}. The values
   * are limits and names, never secrets.
   */
  static List<String> differences(StreamConfiguration actual, Streams.Declared declared) {
    List<String> out = new ArrayList<>();
    if (!new HashSet<>(actual.getSubjects()).equals(new HashSet<>(declared.subjects()))) {
      out.add(
          "subjects is "
              + actual.getSubjects()
              + ", declared "
              + declared.subjects()
              + " (bus.Streams)");
    }
    if (actual.getRetentionPolicy() != RetentionPolicy.Limits) {
      out.add("retention is " + actual.getRetentionPolicy() + ", declared Limits (bus.Streams)");
    }
    if (actual.getStorageType() != storage(declared.storage())) {
      out.add(
          "storage is "
              + actual.getStorageType()
              + ", declared "
              + storage(declared.storage())
              + " (bus.Streams)");
    }
    if (actual.getReplicas() != declared.replicas()) {
      out.add(
          "replicas is "
              + actual.getReplicas()
              + ", declared "
              + declared.replicas()
              + " (bus.nats.stream.replicas)");
    }
    if (!actual.getMaxAge().equals(declared.maxAge())) {
      out.add(
          "max_age is "
              + actual.getMaxAge()
              + ", declared "
              + declared.maxAge()
              + " (bus.nats.stream.maxAge)");
    }
    if (!actual.getDuplicateWindow().equals(declared.duplicateWindow())) {
      out.add(
          "duplicate_window is "
              + actual.getDuplicateWindow()
              + ", declared "
              + declared.duplicateWindow()
              + " (bus.nats.stream.duplicateWindow)");
    }
    if (actual.getMaximumMessageSize() != declared.maxMessageBytes()) {
      out.add(
          "max_msg_size is "
              + actual.getMaximumMessageSize()
              + ", declared "
              + declared.maxMessageBytes()
              + " (sync.maxPayloadBytes plus the bus's header room)");
    }
    return out;
  }

  /** The differences an update cannot fix: JetStream keeps a stream's storage and retention. */
  private static List<String> immutable(StreamConfiguration actual, Streams.Declared declared) {
    List<String> out = new ArrayList<>();
    if (actual.getStorageType() != storage(declared.storage())) {
      out.add(
          "storage is " + actual.getStorageType() + ", declared " + storage(declared.storage()));
    }
    if (actual.getRetentionPolicy() != RetentionPolicy.Limits) {
      out.add("retention is " + actual.getRetentionPolicy() + ", declared Limits");
    }
    return out;
  }

  /** The field names of the differences, for the log line (no values there). */
  private static String fields(List<String> differences) {
    return String.join(",", differences.stream().map(d -> d.substring(0, d.indexOf(' '))).toList());
  }

  private static StorageType storage(Streams.Storage storage) {
    return switch (storage) {
      case FILE -> StorageType.File;
    };
  }
}
