package dev.bothy.platform.jobs;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The work function of a job kind whose work mostly waits (for a group commit, for a receiver's
 * answer) and should not hold a thread while it does (ADR 0031).
 *
 * <p>The runtime calls {@link #start} on its fetch thread and the job holds one of its queue's
 * {@code jobs.queues} slots until the returned stage completes: normally completes the job; with a
 * {@link JobEnd} (from {@link JobContext#snooze}, {@link JobContext#retryNoSoonerThan} or {@link
 * JobContext#cancel}) ends it that way; with anything else fails the attempt, as a thrown exception
 * does for a {@link JobWork}. {@code start} itself must not block: what blocks (a unit of work, a
 * host lookup) goes to the {@code blocking} executor, the queue's worker threads. At the kind's
 * timeout, or when a stop runs past its budget, the runtime cancels the stage's future and no
 * longer waits for it; the work should then let go of what it holds. The same idempotency rules as
 * for {@link JobWork} apply.
 *
 * @param <A> the args record type of the kind
 */
@FunctionalInterface
public interface AsyncJobWork<A extends Record> {
  /**
   * Starts one job's work and returns without waiting for it.
   *
   * @param context the job's id, attempt and the snooze, retry and cancel verbs
   * @param args the job's arguments
   * @param blocking the queue's worker threads, for the parts of the work that block
   * @return completes when the work ended, as described above
   * @throws Exception a failure before the work started; the attempt fails as with a stage that
   *     completed with it
   */
  CompletionStage<?> start(JobContext context, A args, Executor blocking) throws Exception;
}
