package dev.bothy.sync;

import java.util.List;
import java.util.UUID;

/**
 * What {@link Appender#appendNumbered(EventDraft...)} hands back: the ids of the appended events at
 * once, their numbers once the unit's {@code sync} phase gave them.
 *
 * <p>The numbers are known in an {@code audit} phase hook of the same unit and after the unit
 * committed; a receipt of a unit that rolled back (or an earlier attempt of a retried unit) carries
 * numbers that were never committed, so read them only from a committed unit.
 */
public interface AppendReceipt {

  /**
   * Returns the events' ids, in append order.
   *
   * @return the ids
   */
  List<UUID> ids();

  /**
   * Returns the events' numbers, in append order: consecutive, since a unit's events are numbered
   * as one block.
   *
   * @return the numbers
   * @throws dev.bothy.kernel.BothyException {@code internal} before the unit's sync phase numbered
   *     them
   */
  List<Long> seqs();
}
