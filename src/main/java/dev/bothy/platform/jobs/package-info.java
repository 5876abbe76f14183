/**
 * Background jobs, Bothy's counterpart of River (DESIGN.md section 8): the port.
 *
 * <p>A use case or a consumer round inserts jobs with {@link
 * dev.bothy.platform.jobs.JobInserter#insertTx} inside its own unit of work (not worked before
 * commit, gone on rollback); the {@link dev.bothy.platform.jobs.JobRuntime} of the {@code worker}
 * and {@code all} roles works each job, retries failures with backoff and keeps the jobs that
 * exhaust their attempts as dead letters ({@code discarded}) that {@link
 * dev.bothy.platform.jobs.JobAdmin} can list, show, retry and cancel.
 */
package dev.bothy.platform.jobs;
