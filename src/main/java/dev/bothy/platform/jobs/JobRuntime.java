package dev.bothy.platform.jobs;

import java.time.Duration;

/**
 * The workers of the {@code worker} and {@code all} roles: per queue of {@code jobs.queues} a
 * fetcher and at most that many workers, the batched completer and the maintenance.
 */
public interface JobRuntime {
  /**
   * Starts the fetchers, workers, the completer, the LISTEN connection and the maintenance.
   *
   * @throws IllegalStateException when started twice, or a registered kind's queue is not
   *     configured
   */
  void start();

  /**
   * Stops fetching, lets running jobs finish within {@code budget}, then hands the rest back
   * ({@code available}, the attempt not counted) so none is lost or doubled.
   *
   * @param budget how long running jobs may take to finish
   */
  void stop(Duration budget);

  /**
   * The identity written to {@code attempted_by} of the jobs this runtime works.
   *
   * @return the runtime's id
   */
  String clientId();
}
