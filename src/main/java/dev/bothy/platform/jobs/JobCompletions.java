package dev.bothy.platform.jobs;

import java.util.Collection;

/**
 * Completes running jobs inside the caller's unit of work, so that what a job's work wrote and the
 * job's completion commit together (D-WB-3): a work function that records its outcome in a unit
 * shared with other jobs (the webhooks group commit) completes them there, instead of each job's
 * completion costing a statement in a unit of the runtime's own after the work returned.
 *
 * <p>A job completed this way is not completed again when its work returns; if its work throws
 * after that unit committed, the job stays completed (its row no longer runs for this runtime, so
 * the failure changes nothing). A unit that rolls back completes nothing, and the runtime completes
 * the job as usual when its work returns. Thread-safe.
 */
@FunctionalInterface
public interface JobCompletions {
  /**
   * Completes, in the caller's unit of work, those of the given jobs that run for this process's
   * runtime in the attempt their context names; one statement. A job that is no longer this
   * runtime's (handed back, rescued, cancelled by an operator) or runs another attempt by now (the
   * given one timed out and the job was fetched again) is left as it is, and so are all of them in
   * a role without job workers.
   *
   * @param jobs the contexts of the jobs, as their work functions got them
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit of work
   */
  void completeTx(Collection<JobContext> jobs);
}
