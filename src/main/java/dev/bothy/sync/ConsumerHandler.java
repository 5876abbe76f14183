package dev.bothy.sync;

/**
 * What a worker consumer does with each event: decide its recipients and insert their jobs.
 *
 * <p>Contract: {@link #handleEvent} runs inside the round's unit of work, in the {@code work}
 * phase, once per event in {@code seq} order. It may read through ports and the current unit,
 * insert jobs (job args hold only IDs and numbers) and write rows of its own module. It never calls
 * anything outside the process (the round holds the cursor row's lock), never appends an event (the
 * round refuses it: a consumer would read its own output and take the {@code event_seq} lock), and
 * throws to roll the whole round back: no job and no cursor move, the same events come again in the
 * next round. Consumers are independent: one that keeps failing stalls only itself.
 *
 * <p>Insert jobs with {@code JobInserter.insertLater}: it checks the inserts at the call and the
 * phase hook {@code jobs.insert} writes every job of the round with one statement before the
 * commit. {@code JobInserter.insertTx} works in the round's unit too, with the same all-or-nothing
 * commit, but sends one statement per call, so a round of {@code consumer.batchSize} events sends
 * that many while it holds the cursor row; use it only when the handler needs the new ids or the
 * report of skipped unique keys.
 */
@FunctionalInterface
public interface ConsumerHandler {
  /**
   * Handles one event.
   *
   * @param event the stored event
   * @throws Exception any failure; the round rolls back and is retried on the next wake
   */
  void handleEvent(Event event) throws Exception;

  /**
   * Learns that the round skipped events lost to retention, before the round's first {@link
   * #handleEvent}; in the round's unit, under the same contract. A consumer that owes each
   * recipient every event (an ordered webhook) marks its recipients here; the default does nothing,
   * since the round logs the loss anyway.
   *
   * @param fromSeq the first number lost
   * @param toSeq the last number lost
   * @throws Exception any failure; the round rolls back
   */
  default void eventsLost(long fromSeq, long toSeq) throws Exception {}
}
