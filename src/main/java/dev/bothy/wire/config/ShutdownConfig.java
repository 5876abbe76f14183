package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code shutdown} section. */
@Doc("How the process stops.")
public class ShutdownConfig {
  /** Default of {@code shutdown.totalTimeout}. */
  public static final Duration DEFAULT_TOTAL_TIMEOUT = Duration.seconds(30);

  @Doc(
      "Budget of the whole shutdown after the HTTP connectors closed: the stop phases http,"
          + " consumers, jobs and pool run within it, each step cut at the smaller of its own"
          + " budget and what remains. The consumers step has no budget of its own: a running"
          + " worker consumer round may take what remains to commit, then its statement is"
          + " cancelled in the database and the round rolls back.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration totalTimeout = DEFAULT_TOTAL_TIMEOUT;

  /** Default of {@code shutdown.jobsTimeout}. */
  public static final Duration DEFAULT_JOBS_TIMEOUT = Duration.seconds(10);

  @Doc(
      "How long running jobs may take to finish when a worker or all process stops; the jobs"
          + " still running then are interrupted and handed back (available, the attempt not"
          + " counted). Must be shorter than shutdown.totalTimeout, which also covers the hand"
          + " back.")
  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration jobsTimeout = DEFAULT_JOBS_TIMEOUT;

  /**
   * Returns {@code shutdown.jobsTimeout}.
   *
   * @return the budget of running jobs
   */
  public Duration jobsTimeout() {
    return jobsTimeout;
  }

  /**
   * Returns {@code shutdown.totalTimeout}.
   *
   * @return the budget
   */
  public Duration totalTimeout() {
    return totalTimeout;
  }
}
