package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobCompletions;
import dev.bothy.platform.jobs.JobContext;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The {@link JobCompletions} of a process (D-WB-3): built with the module, so other modules can
 * hold it before the workers start, and bound to the process's runtime when it starts. Before that
 * (and in a role without workers) no job of this process runs, so there is nothing to complete.
 */
public final class JobCompletionService implements JobCompletions {
  private final UnitOfWork unitOfWork;
  private final Clock clock;
  private volatile Bound bound;

  private record Bound(JobStore store, String clientId, JobCompleter completer) {}

  /**
   * Creates the service, not yet bound to a runtime.
   *
   * @param unitOfWork the unit of work the callers run in
   * @param clock the completion time
   */
  public JobCompletionService(UnitOfWork unitOfWork, Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Binds the runtime whose running jobs this service completes; at its start. */
  void bind(JobStore store, String clientId, JobCompleter completer) {
    bound = new Bound(store, clientId, completer);
  }

  @Override
  public void completeTx(Collection<JobContext> jobs) {
    if (!unitOfWork.inUnit()) {
      throw BothyException.internal("completeTx called outside a unit of work");
    }
    Bound b = bound;
    if (b == null || jobs.isEmpty()) {
      return;
    }
    Map<UUID, Integer> attempts = new HashMap<>();
    for (JobContext job : jobs) {
      attempts.put(job.id(), job.attempt());
    }
    // Only the attempts given, and only those still running: an attempt that ended meanwhile (an
    // asynchronous work past its timeout) completes nothing, not even the job's next attempt, and
    // leaves nothing noted (D-WF-16).
    List<UUID> completed = b.store().completeAttempts(attempts, clock.now(), b.clientId());
    // Only once the unit committed: a rolled back unit leaves the completion to the runtime.
    unitOfWork.afterCommit(() -> b.completer().completedInUnit(completed));
  }
}
