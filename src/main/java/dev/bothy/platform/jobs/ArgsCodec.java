package dev.bothy.platform.jobs;

/**
 * Turns job args records into the JSON of the {@code args} column and back; the {@code wire} module
 * gives the Jackson implementation, so this module stays free of JSON libraries.
 */
public interface ArgsCodec {
  /**
   * Writes args as a JSON object.
   *
   * @param args the record
   * @return the JSON
   */
  String encodeArgs(Record args);

  /**
   * Reads args.
   *
   * @param json a JSON object
   * @param type the record type
   * @param <A> the record type
   * @return the record
   * @throws dev.bothy.kernel.BothyException {@code invalid} when the JSON does not fit the type
   */
  <A extends Record> A decodeArgs(String json, Class<A> type);
}
