package dev.bothy.platform.jobs;

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
