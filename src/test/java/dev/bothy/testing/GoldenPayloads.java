package dev.bothy.testing;

import dev.bothy.sync.EventType;
import dev.bothy.sync.PayloadCodec;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The golden payloads of the event types, {@code src/test/resources/golden/events/<type>.v<version>
 * .json}, and their update mode ({@code -Dbothy.updateGoldens=true}): a registered type without a
 * golden gets one holding the zero value of each field, to be filled with real values by hand; an
 * existing golden is never rewritten.
 */
public final class GoldenPayloads {
  /** The system property of the update mode. */
  public static final String UPDATE_PROPERTY = "bothy.updateGoldens";

  /** The folder of the golden payloads in the project. */
  public static final Path DIRECTORY =
      Path.of(System.getProperty("bothy.test.projectDir", "."))
          .resolve("src/test/resources/golden/events");

  private GoldenPayloads() {}

  /**
   * Returns the file name of a type's golden payload.
   *
   * @param type the event type
   * @return {@code <name>.v<version>.json}
   */
  public static String fileName(EventType<?> type) {
    return type.name() + ".v" + type.version() + ".json";
  }

  /**
   * Writes a zero-value golden for every type that has none in {@code directory}; never touches an
   * existing file.
   *
   * @param directory the golden folder
   * @param types the registered types
   * @param codec the payload codec; the zero value is written as it encodes it when it decodes,
   *     else as built
   * @return the files written
   * @throws IOException when a file cannot be written
   */
  public static List<Path> writeMissing(
      Path directory, Collection<EventType<?>> types, PayloadCodec codec) throws IOException {
    List<Path> written = new ArrayList<>();
    Files.createDirectories(directory);
    for (EventType<?> type : types) {
      Path file = directory.resolve(fileName(type));
      if (Files.exists(file)) {
        continue;
      }
      String json = zeroJson(type.payloadType(), codec);
      Files.writeString(file, json, StandardCharsets.UTF_8);
      written.add(file);
    }
    return written;
  }

  private static String zeroJson(Class<? extends Record> payloadType, PayloadCodec codec) {
    String skeleton = codec.encode(zeroOf(payloadType));
    try {
      return codec.encode(codec.decode(skeleton, payloadType));
    } catch (RuntimeException refused) {
      // The record refuses its zero value (a check in its constructor): the skeleton is still the
      // right shape to fill in, and the round-trip test names the file until it is.
      return skeleton;
    }
  }

  private static Map<String, Object> zeroOf(Class<?> recordType) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (RecordComponent c : recordType.getRecordComponents()) {
      fields.put(c.getName(), zeroValue(c.getType()));
    }
    return fields;
  }

  private static Object zeroValue(Class<?> raw) {
    if (raw == String.class) {
      return "";
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return false;
    }
    if (raw.isPrimitive() || Number.class.isAssignableFrom(raw)) {
      return 0;
    }
    if (raw == UUID.class) {
      return new UUID(0, 0).toString();
    }
    if (raw == java.time.Instant.class) {
      return "1970-01-01T00:00:00Z";
    }
    if (raw == Optional.class) {
      return null;
    }
    if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
      return List.of();
    }
    if (Map.class.isAssignableFrom(raw)) {
      return Map.of();
    }
    if (raw.isEnum()) {
      return raw.getEnumConstants()[0].toString();
    }
    if (raw.isRecord()) {
      return zeroOf(raw);
    }
    return null;
  }
}
