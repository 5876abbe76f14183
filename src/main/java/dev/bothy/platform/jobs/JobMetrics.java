package dev.bothy.platform.jobs;

/**
 * Where the runtime reports what it does; {@code wire} records it as Dropwizard metrics, exported
 * as {@code bothy_jobs_*}.
 */
public interface JobMetrics {
  /** Reports nothing; for tools and tests that do not look. */
  JobMetrics NONE =
      new JobMetrics() {
        @Override
        public void worked(String kind, Outcome outcome, long nanos) {}

        @Override
        public void fetched(String queue, int jobs, long nanos) {}
      };

  /** How an attempt ended. */
  enum Outcome {
    /** The work returned. */
    COMPLETED,
    /** The work threw, or ran past its timeout; the job will be retried. */
    FAILED,
    /** The work failed its last attempt; the job is a dead letter. */
    DISCARDED,
    /** The work snoozed the job. */
    SNOOZED,
    /** The work cancelled the job. */
    CANCELLED
  }

  /**
   * One attempt ended.
   *
   * @param kind the kind's name
   * @param outcome how
   * @param nanos how long the work function ran
   */
  void worked(String kind, Outcome outcome, long nanos);

  /**
   * One fetch statement ran.
   *
   * @param queue the queue
   * @param jobs how many jobs it returned
   * @param nanos its round trip, unit included
   */
  void fetched(String queue, int jobs, long nanos);
}
