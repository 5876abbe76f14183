package dev.bothy.sync;

/** What a {@link LogTail} subscription receives: the next event, or the order to resync. */
public sealed interface TailSignal {

  /**
   * The next event after the subscriber's position.
   *
   * @param event the event
   */
  record Delivered(Event event) implements TailSignal {}

  /**
   * The subscription ended: the subscriber fell behind the tail's buffer or below the retention
   * window. It must start again from a fresh read of the log.
   *
   * @param afterSeq the last number the subscriber received (or asked to start after)
   * @param minRetainedSeq the smallest number the log holds now when the drop came from retention;
   *     0 when the subscriber was dropped for lagging or the tail stopped (read the log to learn
   *     the minimum)
   */
  record Resync(long afterSeq, long minRetainedSeq) implements TailSignal {}
}
