package dev.bothy.testkit;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Appender;

/**
 * What a chaos suite hands the code that builds a consumer: the parts of the run's process, so the
 * consumer's handlers and stores join the same units of work as dispatch.
 */
public interface ChaosContext {
  /**
   * Returns the run's unit of work (the handlers' transactions).
   *
   * @return the unit of work
   */
  UnitOfWork unitOfWork();

  /**
   * Returns the run's appender.
   *
   * @return the appender
   */
  Appender appender();

  /**
   * Returns the run's clock: fixed at {@link ChaosSuite#START} in every run, so a handler's
   * delivery time is the same in the clean run and under every fault.
   *
   * @return the clock
   */
  Clock clock();
}
