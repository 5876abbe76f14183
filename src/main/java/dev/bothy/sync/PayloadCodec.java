package dev.bothy.sync;

/**
 * Turns payload records into JSON and back; implemented in the assembly with Jackson, which the
 * module itself does not use.
 */
public interface PayloadCodec {

  /**
   * Encodes a payload record.
   *
   * @param payload the record
   * @return its JSON text
   */
  String encode(Object payload);

  /**
   * Decodes JSON into a payload record.
   *
   * @param json the JSON text
   * @param type the payload record type
   * @param <P> the type
   * @return the record
   * @throws dev.bothy.kernel.BothyException {@code invalid} when the JSON does not fit the type
   */
  <P> P decode(String json, Class<P> type);
}
