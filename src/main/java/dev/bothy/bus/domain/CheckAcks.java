package dev.bothy.bus.domain;

import java.util.List;
import java.util.OptionalLong;

/**
 * Reads the answers to one window in order. Message {@code i} of a window published after stream
 * sequence {@code base} expects the stream's last sequence to be {@code base + i} and lands at
 * {@code base + i + 1}; an ack elsewhere means the stream holds that event somewhere other than
 * right after its predecessor: a hole or a second copy in the stream's {@code Bothy-Seq} order.
 */
public final class CheckAcks {
  private CheckAcks() {}

  /**
   * The verdict on a window.
   *
   * @param acked how many messages from the start of the window are in the stream in order
   * @param lastStreamSeq the stream sequence of the last of them ({@code base} for none)
   * @param misplacedAt the index of a message acked at the wrong place, empty when none
   * @param wrongLastSequence true when the first unacked message was refused because another writer
   *     moved the stream
   */
  public record Verdict(
      int acked, long lastStreamSeq, OptionalLong misplacedAt, boolean wrongLastSequence) {

    /**
     * Tells whether every message is in the stream in order.
     *
     * @param windowSize the window's size
     * @return true when all were acked in place
     */
    public boolean complete(int windowSize) {
      return acked == windowSize && misplacedAt.isEmpty();
    }
  }

  /**
   * Checks the answers.
   *
   * @param base the stream's last sequence before the window
   * @param outcomes the answers in publish order
   * @return the verdict: the acked prefix stops at the first failure or misplaced ack
   */
  public static Verdict check(long base, List<PublishOutcome> outcomes) {
    long expected = base + 1;
    for (int i = 0; i < outcomes.size(); i++) {
      PublishOutcome outcome = outcomes.get(i);
      if (outcome instanceof PublishOutcome.Failed failed) {
        return new Verdict(i, expected - 1, OptionalLong.empty(), failed.wrongLastSequence());
      }
      PublishOutcome.Stored stored = (PublishOutcome.Stored) outcome;
      if (stored.streamSeq() != expected) {
        return new Verdict(i, expected - 1, OptionalLong.of(i), false);
      }
      expected++;
    }
    return new Verdict(outcomes.size(), expected - 1, OptionalLong.empty(), false);
  }
}
