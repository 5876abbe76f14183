package dev.bothy.bus.app;

/**
 * The pause of a projection consumer during its replay (ADR 0027, D-RP-2): a lock per durable,
 * scoped to the current unit of work, that holds across processes. Every dispatch unit of a
 * projection's handler takes it shared without waiting; the replay's reset unit takes it exclusive,
 * waiting for the units already running. While the reset holds it, dispatch runs no handler of that
 * consumer (outcome {@code paused}); once the reset commits, they pick up again.
 */
public interface ProjectionLock {
  /**
   * Takes the lock of a durable shared for the rest of the current unit, without waiting.
   *
   * @param durable the projection consumer's durable
   * @return false when a replay holds it (or waits for it): the consumer is paused
   */
  boolean tryShared(String durable);

  /**
   * Takes the lock of a durable exclusive for the rest of the current unit, waiting for the units
   * that hold it shared (bounded by {@code database.lockTimeout}, after which the unit of work
   * retries).
   *
   * @param durable the projection consumer's durable
   */
  void exclusive(String durable);
}
