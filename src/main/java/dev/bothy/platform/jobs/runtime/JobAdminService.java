package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobActivity;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.platform.jobs.QueueCount;
import dev.bothy.platform.jobs.domain.JobNames;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link JobAdmin} of the {@code jobs} commands: each verb is one unit that locks the row,
 * checks its state and changes it.
 */
public final class JobAdminService implements JobAdmin {
  private final UnitOfWork unitOfWork;
  private final Clock clock;
  private final JobAdminStore store = new JobAdminStore();

  /**
   * Creates the service.
   *
   * @param unitOfWork runs each verb in its own unit
   * @param clock stamps retries and cancels
   */
  public JobAdminService(UnitOfWork unitOfWork, Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public List<JobView> list(Optional<JobState> state, Optional<String> kind, int limit) {
    if (limit < 1) {
      throw BothyException.invalid("the limit must be at least 1: " + limit);
    }
    requireKindName(kind);
    return unitOfWork.run(() -> store.list(state, kind, limit));
  }

  @Override
  public List<JobView> page(
      Optional<JobState> state, Optional<String> kind, Optional<UUID> before, int limit) {
    if (limit < 1) {
      throw BothyException.invalid("the limit must be at least 1: " + limit);
    }
    requireKindName(kind);
    return unitOfWork.run(() -> store.page(state, kind, before, limit));
  }

  @Override
  public JobActivity activity(Instant from, Instant to) {
    if (to.isBefore(from)) {
      throw BothyException.invalid("the span ends before it starts: " + from + " to " + to);
    }
    return unitOfWork.run(() -> store.activity(from, to));
  }

  @Override
  public long countUpTo(Optional<JobState> state, Optional<String> kind, int limit) {
    if (limit < 1) {
      throw BothyException.invalid("the limit must be at least 1: " + limit);
    }
    requireKindName(kind);
    return unitOfWork.run(() -> store.countUpTo(state, kind, limit));
  }

  // A filter that is no kind's name matches nothing: say so instead of an empty list, and keep
  // text PostgreSQL refuses (U+0000) away from the database.
  private static void requireKindName(Optional<String> kind) {
    if (kind.isPresent() && !JobNames.validKind(kind.get())) {
      throw BothyException.invalid(
          "kind must be a job kind's name, module.name in lower case such as webhooks.deliver");
    }
  }

  @Override
  public JobView show(UUID id) {
    return unitOfWork.run(() -> store.find(id, false).orElseThrow(() -> unknown(id)));
  }

  @Override
  public JobView retry(UUID id) {
    return unitOfWork.run(
        () -> {
          JobView job = store.find(id, true).orElseThrow(() -> unknown(id));
          if (!job.state().operatorMayRetry()) {
            throw BothyException.conflict(
                "job "
                    + id
                    + " is "
                    + job.state().code()
                    + "; only a discarded, retryable, scheduled or cancelled job can be retried");
          }
          store.retry(id, clock.now());
          return store.find(id, false).orElseThrow(() -> unknown(id));
        });
  }

  @Override
  public JobView cancel(UUID id) {
    return unitOfWork.run(
        () -> {
          JobView job = store.find(id, true).orElseThrow(() -> unknown(id));
          if (!job.state().operatorMayCancel()) {
            throw BothyException.conflict(
                "job " + id + " is already " + job.state().code() + "; there is nothing to cancel");
          }
          store.cancel(id, clock.now(), "cancelled by an operator");
          return store.find(id, false).orElseThrow(() -> unknown(id));
        });
  }

  @Override
  public List<QueueCount> counts() {
    return unitOfWork.run(store::counts);
  }

  private static BothyException unknown(UUID id) {
    return BothyException.notFound("no job has the id " + id);
  }
}
