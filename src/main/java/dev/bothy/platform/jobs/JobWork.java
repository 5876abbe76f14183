package dev.bothy.platform.jobs;

/**
 * The work function of a job kind.
 *
 * <p>It runs outside any unit of work (it opens its own when it writes) and may run more than once
 * for one job: after a failure, a timeout or a worker that died, the job is attempted again, so the
 * function must be idempotent. Returning normally completes the job; throwing fails the attempt;
 * {@link JobContext#snooze} and {@link JobContext#cancel} end it otherwise. It should return when
 * its thread is interrupted: that is how a timeout and a stop past the budget reach it.
 *
 * @param <A> the args record type of the kind
 */
@FunctionalInterface
public interface JobWork<A extends Record> {
  /**
   * Works one job.
   *
   * @param context the job's id, attempt and the snooze and cancel verbs
   * @param args the job's arguments
   * @throws Exception any failure; the attempt is recorded and retried with backoff
   */
  void work(JobContext context, A args) throws Exception;
}
