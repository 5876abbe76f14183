package dev.bothy.kernel.txn;

/**
 * Code a module runs in one phase of every unit of work, inside the unit's transaction.
 *
 * <p>A hook that throws rolls the whole unit back; a retryable database error from a hook retries
 * the whole unit like one from the work.
 */
@FunctionalInterface
public interface PhaseHook {

  /** Runs the hook for the current unit. */
  void run();
}
