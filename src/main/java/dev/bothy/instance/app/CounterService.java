package dev.bothy.instance.app;

import dev.bothy.instance.CounterName;
import dev.bothy.instance.Counters;
import dev.bothy.instance.domain.CounterRules;
import dev.bothy.kernel.txn.UnitOfWork;
import java.util.Objects;

/**
 * {@link Counters} with the phase guard: every call checks name, amount and the unit's phase before
 * any SQL.
 */
public final class CounterService implements Counters {
  private final UnitOfWork unitOfWork;
  private final CounterRepository repository;

  /**
   * Creates the service; only the assembly does, and hands it only to phase hooks.
   *
   * @param unitOfWork tells the current phase
   * @param repository the storage
   */
  public CounterService(UnitOfWork unitOfWork, CounterRepository repository) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.repository = Objects.requireNonNull(repository, "repository");
  }

  @Override
  public long advance(CounterName name, long n) {
    CounterRules.checkAdvance(name.value(), n, unitOfWork.currentPhase());
    return repository.advance(name.value(), n);
  }

  @Override
  public long current(CounterName name) {
    CounterRules.checkCurrent(name.value(), unitOfWork.currentPhase());
    return repository.current(name.value());
  }
}
