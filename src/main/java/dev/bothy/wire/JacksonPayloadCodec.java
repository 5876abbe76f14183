package dev.bothy.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.sync.PayloadCodec;

/**
 * The {@link PayloadCodec} of the event log and the {@link ArgsCodec} of job args: records to
 * compact JSON and back with Jackson, record components in declaration order, unknown properties
 * refused.
 */
public final class JacksonPayloadCodec implements PayloadCodec, ArgsCodec {
  private final ObjectMapper mapper;

  // One reader per record type, its root deserializer found once: the mapper's readValue resolves
  // the class to a Jackson type and looks its deserializer up on every call, about a sixth of the
  // decoding in a bus worker's profile (D-BD-16). Readers are immutable and thread-safe.
  private final ClassValue<ObjectReader> readers =
      new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
          return mapper.readerFor(type);
        }
      };

  /**
   * Creates the codec over a copy of the application's mapper.
   *
   * @param mapper Dropwizard's object mapper (its modules know Optional, java.time and more)
   */
  public JacksonPayloadCodec(ObjectMapper mapper) {
    this.mapper = mapper.copy().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Refuses text PostgreSQL's {@code jsonb} cannot hold as it is: U+0000, which {@code jsonb}
   * refuses with a piece of the payload in its error, and a lone surrogate, which the driver's
   * UTF-8 encoder would store as {@code ?}. The HTTP API refuses both earlier with a pointer; this
   * holds for every other producer.
   *
   * @throws BothyException {@code invalid}, naming the record type and never its content
   */
  @Override
  public String encode(Object payload) {
    String json;
    try {
      json = mapper.writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw BothyException.invalid(
          "the payload " + payload.getClass().getSimpleName() + " cannot be written as JSON");
    }
    String problem = unstorable(json);
    if (problem != null) {
      throw BothyException.invalid(
          "the payload " + payload.getClass().getSimpleName() + " holds " + problem);
    }
    return json;
  }

  /**
   * What in the written JSON {@code jsonb} cannot store as sent, or null. Jackson writes U+0000 as
   * a six-character escape (a backslash, {@code u} and four zeros) and other text as it is; the
   * escape counts only after an odd run of backslashes, since an even run is escaped backslashes
   * followed by plain letters.
   */
  private static String unstorable(String json) {
    int backslashes = 0;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '\\') {
        backslashes++;
        continue;
      }
      if (backslashes % 2 == 1 && json.startsWith("u0000", i)) {
        return "U+0000";
      }
      backslashes = 0;
      if (Character.isHighSurrogate(c)
          && i + 1 < json.length()
          && Character.isLowSurrogate(json.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return "a lone surrogate";
      }
    }
    return null;
  }

  @Override
  public <P> P decode(String json, Class<P> type) {
    try {
      return readers.get(type).readValue(json);
    } catch (JsonProcessingException e) {
      throw BothyException.invalid(
          "the JSON does not fit the payload "
              + type.getSimpleName()
              + " at line "
              + (e.getLocation() == null ? 0 : e.getLocation().getLineNr())
              + ": "
              + e.getOriginalMessage());
    }
  }

  @Override
  public String encodeArgs(Record args) {
    return encode(args);
  }

  @Override
  public <A extends Record> A decodeArgs(String json, Class<A> type) {
    return decode(json, type);
  }
}
