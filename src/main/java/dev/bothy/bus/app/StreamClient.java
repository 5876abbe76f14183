package dev.bothy.bus.app;

import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.sync.Event;
import java.util.List;

/**
 * The relay's side of the stream (the NATS adapter implements it). No method is ever called inside
 * a database transaction.
 */
public interface StreamClient {

  /**
   * Reads the stream's last sequence and its last message.
   *
   * @return the tail
   * @throws dev.bothy.kernel.BothyException {@code unavailable} when the server cannot be asked
   */
  StreamTail tail();

  /**
   * Publishes the events in order, asynchronously, each to its type's subject with {@code
   * Nats-Msg-Id} = its id, the headers {@code Bothy-Seq} and {@code traceparent}, and the expected
   * last stream sequence {@code base + i} for the {@code i}-th, then waits for every answer up to
   * the publish ack timeout.
   *
   * @param events the window, in log order
   * @param base the stream's last sequence before the window
   * @return one outcome per event, in order
   */
  default List<PublishOutcome> publish(List<Event> events, long base) {
    return publish(events, base, "");
  }

  /**
   * Publishes like {@link #publish(List, long)} with {@code Nats-Msg-Id} = the event id followed by
   * a suffix: an operator's republish after a purge, whose ids the stream's duplicate window may
   * still remember ({@link RelayRepublish}).
   *
   * @param events the window, in log order
   * @param base the stream's last sequence before the window
   * @param idSuffix appended to each event id, starting with {@code .}; empty for none
   * @return one outcome per event, in order
   */
  List<PublishOutcome> publish(List<Event> events, long base, String idSuffix);

  /**
   * Reads the {@code Bothy-Seq} of the message at a stream sequence.
   *
   * @param streamSeq the stream sequence
   * @return its {@code Bothy-Seq}; -1 for a message without one (another writer's); empty when the
   *     stream holds no message there (removed by age or a purge)
   * @throws dev.bothy.kernel.BothyException {@code unavailable} when the server cannot be asked
   */
  java.util.OptionalLong bothySeqAt(long streamSeq);

  /**
   * Tells whether the connection to the server is up now.
   *
   * @return true when connected
   */
  boolean connected();
}
