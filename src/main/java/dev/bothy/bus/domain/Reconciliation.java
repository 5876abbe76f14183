package dev.bothy.bus.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * What the relay does on start (and after any doubt) when it compares the stream's last message
 * with its cursor. Pure: the caller reads the facts.
 */
public sealed interface Reconciliation {

  /**
   * The stream and the cursor agree: publish after the cursor, the next message lands at {@code
   * lastStreamSeq + 1}.
   *
   * @param lastStreamSeq the stream's last sequence
   */
  record InStep(long lastStreamSeq) implements Reconciliation {}

  /**
   * The stream holds more than the cursor says (the relay stopped between the acks and its cursor
   * update): move the cursor to {@code to}.
   *
   * @param from the cursor read
   * @param to the stream's last {@code Bothy-Seq}
   * @param lastStreamSeq the stream's last sequence
   */
  record Ahead(long from, long to, long lastStreamSeq) implements Reconciliation {}

  /**
   * The stream lacks events the cursor says it has (purged or recreated): the relay stops until an
   * operator republishes.
   *
   * @param streamLast the stream's last {@code Bothy-Seq}, 0 for an empty stream
   * @param cursor the cursor
   */
  record Behind(long streamLast, long cursor) implements Reconciliation {}

  /**
   * The stream's last message is not an event of this log (another database's stream, another
   * writer on its subjects): the relay stops.
   *
   * @param reason what differs, in words without data
   */
  record Mismatch(String reason) implements Reconciliation {}

  /**
   * What the log says about the events the decision looks at.
   *
   * @param head the log's head
   * @param minRetained the oldest number the log still holds, 0 for an empty log
   * @param idOfStreamLast the id of the event numbered like the stream's last message, empty when
   *     the log no longer holds it (retention) or never did
   * @param cursorEventTime when the event at the cursor occurred, empty when the log no longer
   *     holds it
   * @param now the time of the decision
   */
  record LogFacts(
      long head,
      long minRetained,
      Optional<UUID> idOfStreamLast,
      Optional<Instant> cursorEventTime,
      Instant now) {}

  /**
   * Decides.
   *
   * <ul>
   *   <li>An empty stream agrees with a cursor at 0, with a cursor whose event the log no longer
   *       holds (both aged out), and with one whose event is older than the stream's {@code
   *       MaxAge}; otherwise it is behind.
   *   <li>A last message without {@code Bothy-Seq}, numbered past the log's head, or whose id is
   *       not the log's event of that number is a mismatch.
   *   <li>Otherwise its {@code Bothy-Seq} above the cursor is ahead, equal is in step, below is
   *       behind, unless the log no longer holds any event between the two (retention removed them
   *       and an operator moved the cursor past the loss with {@code bus republish}): then in step.
   * </ul>
   *
   * @param cursor the relay's cursor
   * @param tail the stream's tail
   * @param log the log's facts
   * @return the decision
   */
  static Reconciliation decide(long cursor, StreamTail tail, LogFacts log) {
    if (tail.empty()) {
      if (cursor == 0 || log.cursorEventTime().isEmpty()) {
        return new InStep(tail.lastStreamSeq());
      }
      Duration maxAge = tail.maxAge();
      boolean agedOut =
          !maxAge.isZero() && log.cursorEventTime().get().plus(maxAge).isBefore(log.now());
      return agedOut ? new InStep(tail.lastStreamSeq()) : new Behind(0, cursor);
    }
    if (tail.lastBothySeq().isEmpty()) {
      return new Mismatch("the stream's last message has no Bothy-Seq header");
    }
    long last = tail.lastBothySeq().getAsLong();
    if (last > log.head()) {
      return new Mismatch("the stream's last Bothy-Seq is past the log's head");
    }
    if (log.idOfStreamLast().isPresent()
        && !tail.lastMessageId().equals(Optional.of(log.idOfStreamLast().get().toString()))) {
      return new Mismatch("the stream's last message is not this log's event of that number");
    }
    if (last > cursor) {
      return new Ahead(cursor, last, tail.lastStreamSeq());
    }
    if (last == cursor) {
      return new InStep(tail.lastStreamSeq());
    }
    if (log.minRetained() > cursor) {
      return new InStep(tail.lastStreamSeq());
    }
    return new Behind(last, cursor);
  }
}
