package dev.bothy.sync.app;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The partitions of the event log; called inside a unit of work only. */
public interface PartitionRepository {

  /**
   * Takes the maintenance lock for the rest of the unit, without waiting.
   *
   * @return true when this unit holds it, false when another maintenance runs
   */
  boolean tryLockMaintenance();

  /**
   * Lists the partitions.
   *
   * @return the partitions, ordered by their first number
   */
  List<Partition> partitions();

  /**
   * Returns when the newest event of a number range occurred.
   *
   * @param from the first number
   * @param to one past the last number
   * @return the newest {@code occurred_at}, or empty when the range holds no event
   */
  Optional<Instant> newestEventAt(long from, long to);

  /**
   * Creates a partition (through the owner's function; the runtime role has no DDL rights).
   *
   * @param from the first number
   * @param to one past the last number
   * @return the new partition's name
   */
  String create(long from, long to);

  /**
   * Detaches and drops a partition (through the owner's function).
   *
   * @param name the partition's name
   */
  void drop(String name);
}
