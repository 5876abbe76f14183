package dev.bothy.sync;

import java.time.Duration;
import java.util.Optional;

/**
 * The live tail of the event log: one per {@code api}/{@code all} process, reading the log in order
 * as events commit and handing them to its subscribers.
 *
 * <p>A subscriber that cannot keep up is dropped with a {@link TailSignal.Resync} and never stalls
 * the tail or the other subscribers.
 */
public interface LogTail {

  /**
   * Subscribes from a number: the subscription yields every event after it, in order, first the
   * backlog from the log, then live events.
   *
   * @param afterSeq the last number the subscriber has; 0 for the start of the log
   * @return the subscription; close it when done
   */
  Subscription subscribe(long afterSeq);

  /** A subscriber's view of the tail. Used by one thread. */
  interface Subscription extends AutoCloseable {

    /**
     * Waits for the next signal.
     *
     * @param timeout the longest wait
     * @return the next event or the resync order; empty when nothing came within the timeout
     * @throws InterruptedException when the waiting thread is interrupted
     */
    Optional<TailSignal> poll(Duration timeout) throws InterruptedException;

    /** Ends the subscription. */
    @Override
    void close();
  }
}
