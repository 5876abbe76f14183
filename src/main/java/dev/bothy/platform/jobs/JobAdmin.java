package dev.bothy.platform.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** What operators do with jobs: the {@code jobs} commands. */
public interface JobAdmin {
  /**
   * Lists jobs, newest first.
   *
   * @param state only this state, or empty for all
   * @param kind only this kind, or empty for all
   * @param limit at most this many
   * @return the jobs
   */
  List<JobView> list(Optional<JobState> state, Optional<String> kind, int limit);

  /**
   * Lists one page of jobs in descending id order (newest first, ids being UUIDv7), starting below
   * a keyset cursor: the database reads only the page, never the rows before it.
   *
   * @param state only this state, or empty for all
   * @param kind only this kind, or empty for all
   * @param before only ids below this one (the last id of the previous page), or empty for the
   *     first page
   * @param limit at most this many, at least 1
   * @return the jobs, at most {@code limit}
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a limit below 1
   */
  List<JobView> page(
      Optional<JobState> state, Optional<String> kind, Optional<UUID> before, int limit);

  /**
   * Counts the jobs that match, reading at most {@code limit} rows: a count over a bounded
   * subquery, so its cost has a ceiling however large the table grows.
   *
   * @param state only this state, or empty for all
   * @param kind only this kind, or empty for all
   * @param limit the most rows to count, at least 1
   * @return the number of matching jobs, or {@code limit} when there are that many or more
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a limit below 1
   */
  long countUpTo(Optional<JobState> state, Optional<String> kind, int limit);

  /**
   * Counts the jobs created, completed and discarded in {@code [from, to)}, for rates: created by
   * the ids' time (UUIDv7, a range of the primary key), completed and discarded by {@code
   * finalized_at} (a range of the cleaner's index), so each count reads only the span's rows. A job
   * the cleaner already deleted is no longer counted: spans shorter than {@code
   * jobs.completedRetention} are exact.
   *
   * @param from the start, included
   * @param to the end, excluded; not before {@code from}
   * @return the counts
   * @throws dev.bothy.kernel.BothyException {@code invalid} when {@code to} is before {@code from}
   */
  JobActivity activity(Instant from, Instant to);

  /**
   * Shows one job.
   *
   * @param id the id
   * @return the job
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id
   */
  JobView show(UUID id);

  /**
   * Makes a discarded, retryable, scheduled or cancelled job available now, its attempts counted
   * from zero again (the error history stays).
   *
   * @param id the id
   * @return the job after the change
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id, {@code conflict}
   *     for a job that is running, available or completed
   */
  JobView retry(UUID id);

  /**
   * Cancels a job that has not finished; a running attempt is left to end, and its outcome is
   * ignored.
   *
   * @param id the id
   * @return the job after the change
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id, {@code conflict}
   *     for a job that has already finished
   */
  JobView cancel(UUID id);

  /**
   * Counts jobs by queue and state, for the {@code bothy_jobs} gauge.
   *
   * @return one entry per queue and state that has jobs
   */
  List<QueueCount> counts();
}
