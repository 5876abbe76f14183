package dev.bothy.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
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

  /**
   * Creates the codec over a copy of the application's mapper.
   *
   * @param mapper Dropwizard's object mapper (its modules know Optional, java.time and more)
   */
  public JacksonPayloadCodec(ObjectMapper mapper) {
    this.mapper = mapper.copy().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  @Override
  public String encode(Object payload) {
    try {
      return mapper.writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw BothyException.invalid(
          "the payload " + payload.getClass().getSimpleName() + " cannot be written as JSON");
    }
  }

  @Override
  public <P> P decode(String json, Class<P> type) {
    try {
      return mapper.readValue(json, type);
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
