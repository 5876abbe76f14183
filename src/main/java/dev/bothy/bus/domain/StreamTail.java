package dev.bothy.bus.domain;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the relay reads from the stream on start: its last sequence and what its last message
 * carries.
 *
 * @param lastStreamSeq the stream's last sequence (it stays after a purge; 0 for a new stream)
 * @param empty true when the stream holds no message
 * @param lastBothySeq the {@code Bothy-Seq} header of the last message; empty when the stream is
 *     empty or the message has none
 * @param lastMessageId the {@code Nats-Msg-Id} of the last message, the event id
 * @param maxAge the stream's {@code MaxAge}; zero for none
 */
public record StreamTail(
    long lastStreamSeq,
    boolean empty,
    OptionalLong lastBothySeq,
    Optional<String> lastMessageId,
    Duration maxAge) {

  /** Checks the values. */
  public StreamTail {
    Objects.requireNonNull(lastBothySeq, "lastBothySeq");
    Objects.requireNonNull(lastMessageId, "lastMessageId");
    Objects.requireNonNull(maxAge, "maxAge");
    if (lastStreamSeq < 0) {
      throw new IllegalArgumentException("a stream sequence is not negative");
    }
  }

  /**
   * A stream that holds no message.
   *
   * @param lastStreamSeq its last sequence
   * @param maxAge its {@code MaxAge}
   * @return the tail
   */
  public static StreamTail empty(long lastStreamSeq, Duration maxAge) {
    return new StreamTail(lastStreamSeq, true, OptionalLong.empty(), Optional.empty(), maxAge);
  }
}
