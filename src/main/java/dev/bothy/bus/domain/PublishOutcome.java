package dev.bothy.bus.domain;

/** What the stream answered to one published message. */
public sealed interface PublishOutcome {

  /**
   * A {@code PublishAck}: the message is in the stream at {@code streamSeq}.
   *
   * @param streamSeq its stream sequence; for a duplicate, the sequence of the copy stored first
   * @param duplicate true when the stream had the message id already
   */
  record Stored(long streamSeq, boolean duplicate) implements PublishOutcome {}

  /**
   * No ack: a timeout, a lost connection or an error answer; the message may or may not be stored.
   *
   * @param wrongLastSequence true when the stream refused it because its last sequence was not the
   *     one expected (another writer stored messages in between)
   */
  record Failed(boolean wrongLastSequence) implements PublishOutcome {}
}
