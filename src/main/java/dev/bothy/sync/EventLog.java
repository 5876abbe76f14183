package dev.bothy.sync;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads the event log. Every method joins the calling thread's unit of work when there is one and
 * runs its own otherwise.
 *
 * <p>A reader that sees number {@code k} sees every smaller number ever committed (the numbers are
 * taken in the sync phase and follow commit order); the only numbers that go missing are the
 * oldest, removed whole by retention.
 */
public interface EventLog {

  /**
   * Returns the head: the highest committed number.
   *
   * @return the head, 0 for an empty log
   */
  long head();

  /**
   * Returns the smallest number the log still holds.
   *
   * @return the minimum, 0 for an empty log
   */
  long minRetained();

  /**
   * Reads the events after a number, in order.
   *
   * @param afterSeq the last number the reader has, 0 for the start
   * @param limit the most events to return, at least 1
   * @return a page; or {@link ReadResult.ResyncRequired} when {@code afterSeq + 1} is below the
   *     minimum retained number, because the events in between are gone
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a negative number or a limit below
   *     1
   */
  ReadResult readAfter(long afterSeq, int limit);

  /**
   * Reads the events with the given numbers, with one statement whatever their count: for a reader
   * that needs scattered events at once (a batch of webhook deliveries, D-WB-1).
   *
   * <p>Example: {@code log.readNumbers(List.of(42L, 7L, 42L))} gives the events 7 and 42, in that
   * order, when the log holds both.
   *
   * @param seqs the numbers; duplicates are read once
   * @return the events the log holds among them, in number order; a number missing from the answer
   *     was removed by retention or never committed
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a number below 1
   */
  List<Event> readNumbers(Collection<Long> seqs);

  /**
   * Finds the numbers of committed events by their ids, reading forward from a number known to be
   * below all of them (the head seen before they were appended), so the read stops after the events
   * of the units that committed in between.
   *
   * <p>Example: {@code log.numbersOf(List.of(a, b), 41)} gives {@code Optional.of(List.of(42L,
   * 43L))}.
   *
   * @param ids the events' ids
   * @param afterSeq a number below every one of them
   * @return their numbers in the order of {@code ids}, or empty when any of them is not in the log
   *     (never committed, or removed by retention)
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a negative number
   */
  Optional<List<Long>> numbersOf(List<UUID> ids, long afterSeq);
}
