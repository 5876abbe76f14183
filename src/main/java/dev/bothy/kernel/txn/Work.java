package dev.bothy.kernel.txn;

/**
 * The caller's part of a unit of work: runs in {@link Phase#WORK} and returns a result.
 *
 * <p>It may run more than once: a unit that hits a deadlock or a lock timeout is retried from the
 * start, so the work must not have effects outside the transaction (use {@link
 * UnitOfWork#afterCommit(Runnable)} for those).
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface Work<T> {

  /**
   * Does the work.
   *
   * @return the result handed back by {@link UnitOfWork#run(Work)}
   * @throws Exception any failure; it rolls the unit back
   */
  T run() throws Exception;
}
