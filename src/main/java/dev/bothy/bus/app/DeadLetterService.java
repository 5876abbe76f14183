package dev.bothy.bus.app;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterError;
import dev.bothy.bus.DeadLetterKey;
import dev.bothy.bus.DeadLetters;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobInserter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The operator's verbs on dead letters. A replay marks the dead letter replayed and inserts one
 * {@code bus.dispatch} job in the same unit, so it either happens whole or not at all; the job runs
 * on a worker process whatever the transport, through the same dedupe rules and verdicts.
 */
public final class DeadLetterService implements DeadLetters {
  private final UnitOfWork unitOfWork;
  private final DeadLetterRepository store;
  private final JobInserter inserter;
  private final Clock clock;

  /**
   * Creates the service.
   *
   * @param unitOfWork the unit of work
   * @param store the dead letters' store
   * @param inserter inserts the replay's job; {@code bus.dispatch} must be registered with it
   * @param clock the time of a replay
   */
  public DeadLetterService(
      UnitOfWork unitOfWork, DeadLetterRepository store, JobInserter inserter, Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.store = Objects.requireNonNull(store, "store");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public List<DeadLetter> list(boolean includeReplayed, int limit) {
    if (limit < 1) {
      throw BothyException.invalid("the limit must be at least 1, got " + limit);
    }
    return unitOfWork.run(() -> store.list(includeReplayed, limit));
  }

  @Override
  public List<DeadLetter> page(boolean includeReplayed, Optional<DeadLetterKey> before, int limit) {
    Objects.requireNonNull(before, "before");
    if (limit < 1) {
      throw BothyException.invalid("the limit must be at least 1, got " + limit);
    }
    return unitOfWork.run(() -> store.page(includeReplayed, before, limit));
  }

  @Override
  public long countUpTo(boolean includeReplayed, int cap) {
    if (cap < 1) {
      throw BothyException.invalid("the cap must be at least 1, got " + cap);
    }
    return unitOfWork.run(() -> store.countUpTo(includeReplayed, cap));
  }

  @Override
  public List<DeadLetterError> errors(UUID id) {
    return unitOfWork.run(
        () -> store.errors(id).orElseThrow(() -> BothyException.notFound("no dead letter " + id)));
  }

  @Override
  public DeadLetter show(UUID id) {
    return unitOfWork.run(
        () -> store.find(id).orElseThrow(() -> BothyException.notFound("no dead letter " + id)));
  }

  @Override
  public DeadLetter replay(UUID id) {
    return unitOfWork.run(
        () -> {
          DeadLetter letter =
              store.lock(id).orElseThrow(() -> BothyException.notFound("no dead letter " + id));
          if (!letter.open()) {
            throw BothyException.conflict(
                "the dead letter " + id + " was replayed and has not died again since");
          }
          store.markReplayed(id, clock.now());
          inserter.insertTx(
              List.of(DispatchJob.replay(letter.handler(), letter.eventId(), letter.eventSeq())));
          return store.find(id).orElseThrow();
        });
  }
}
