package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobsModule;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/** The {@code jobs} section: queues, retries, timeouts, the rescuer and the cleaner. */
@Doc("The background jobs of platform.jobs.")
public class JobsConfig {
  /** Default workers of the {@code default} queue. */
  public static final int DEFAULT_QUEUE_WORKERS = 100;

  /** Default workers of the {@code maintenance} queue. */
  public static final int MAINTENANCE_QUEUE_WORKERS = 1;

  /**
   * Workers of the queue {@code webhooks} in the default {@code jobs.queues}: each waits on a
   * receiver for up to {@code webhooks.requestTimeout}. One receiver gets at most {@code
   * webhooks.maxConnectionsPerTarget} requests at once (20 by default) whatever this number; the
   * workers beyond that keep other receivers served and let the deliveries' database work run in
   * larger batches (D-WF-7, D-WF-13). A delivery thread holds no database connection while it
   * sends. Not above the default {@code webhooks.maxConnections}, so that every worker can have a
   * connection when the deliveries in flight go to many receivers.
   */
  public static final int WEBHOOKS_QUEUE_WORKERS = 300;

  /**
   * Workers of the queue {@code bus} in the default {@code jobs.queues}: the {@code bus.dispatch}
   * jobs of the log transport, each one handler's short transaction.
   */
  public static final int BUS_QUEUE_WORKERS = 10;

  /** Most workers one queue may have in one process. */
  public static final int MAX_QUEUE_WORKERS = 1000;

  /** Default of {@code jobs.pollInterval}. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.seconds(1);

  /** Default of {@code jobs.fetchLookback}. */
  public static final Duration DEFAULT_FETCH_LOOKBACK = Duration.seconds(5);

  /** Default of {@code jobs.retryBaseDelay}. */
  public static final Duration DEFAULT_RETRY_BASE_DELAY = Duration.seconds(1);

  /** Default of {@code jobs.retryMaxDelay}. */
  public static final Duration DEFAULT_RETRY_MAX_DELAY = Duration.hours(1);

  /** Default of {@code jobs.rescueAfter}. */
  public static final Duration DEFAULT_RESCUE_AFTER = Duration.hours(1);

  /** Default of {@code jobs.completedRetention}. */
  public static final Duration DEFAULT_COMPLETED_RETENTION = Duration.days(1);

  /** Default of {@code jobs.discardedRetention}. */
  public static final Duration DEFAULT_DISCARDED_RETENTION = Duration.days(7);

  /** Default of {@code jobs.maintenanceInterval}. */
  public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.minutes(1);

  /** Default of {@code jobs.cleanerBatchSize}. */
  public static final int DEFAULT_CLEANER_BATCH_SIZE = 10_000;

  /** Upper bound of {@code jobs.cleanerBatchSize}. */
  public static final int MAX_CLEANER_BATCH_SIZE = 1_000_000;

  /** Default of {@code jobs.errorMessageMaxChars}. */
  public static final int DEFAULT_ERROR_MESSAGE_MAX_CHARS = 2000;

  /** Upper bound of {@code jobs.errorMessageMaxChars}. */
  public static final int MAX_ERROR_MESSAGE_MAX_CHARS = 100_000;

  /** Default of {@code jobs.defaultMaxAttempts}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 25;

  /** Upper bound of {@code jobs.defaultMaxAttempts}. */
  public static final int MAX_MAX_ATTEMPTS = 1000;

  /** Default of {@code jobs.defaultTimeout}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.minutes(1);

  @Doc(
      "Queue name to the most jobs of that queue one worker or all process works at once. The"
          + " map replaces the default one: list default, maintenance, webhooks and bus;"
          + " check refuses a map without maintenance, webhooks or bus.")
  @NotEmpty
  @JsonProperty
  private Map<String, Integer> queues =
      new TreeMap<>(
          Map.of(
              "default",
              DEFAULT_QUEUE_WORKERS,
              "maintenance",
              MAINTENANCE_QUEUE_WORKERS,
              "webhooks",
              WEBHOOKS_QUEUE_WORKERS,
              "bus",
              BUS_QUEUE_WORKERS));

  @Doc(
      "How often a queue's fetcher looks for due jobs without a notification; also bounds how"
          + " late a scheduled or retried job starts.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration pollInterval = DEFAULT_POLL_INTERVAL;

  @Doc(
      "How far before its queue's oldest waiting job a fetch starts reading: the entries of jobs"
          + " fetched since the last vacuum lie before that and are not read again. The oldest"
          + " waiting job is read once per jobs.pollInterval; a job that committed more than this"
          + " after the time its transaction stamped as its due time (a longer transaction, or a"
          + " process whose clock lags), or that a stopping process handed back, starts within"
          + " jobs.pollInterval instead of at once.")
  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration fetchLookback = DEFAULT_FETCH_LOOKBACK;

  @Doc("Delay before the retry of a job's first failed attempt; it doubles per attempt.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration retryBaseDelay = DEFAULT_RETRY_BASE_DELAY;

  @Doc("Cap of the retry delay.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration retryMaxDelay = DEFAULT_RETRY_MAX_DELAY;

  @Doc(
      "A job running longer than this is taken back by the rescuer (its worker died) and"
          + " retried; every job kind's timeout must be shorter.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration rescueAfter = DEFAULT_RESCUE_AFTER;

  @Doc("Completed and cancelled jobs are deleted this long after they finished.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration completedRetention = DEFAULT_COMPLETED_RETENTION;

  @Doc("Discarded jobs (dead letters) are deleted this long after they were discarded.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration discardedRetention = DEFAULT_DISCARDED_RETENTION;

  @Doc(
      "How often a worker or all process runs the rescuer, the cleaner and the periodic job"
          + " inserts (one process at a time, through an advisory lock).")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;

  @Doc("Most finished jobs of one state one cleaner run deletes.")
  @Min(1)
  @Max(MAX_CLEANER_BATCH_SIZE)
  @JsonProperty
  private int cleanerBatchSize = DEFAULT_CLEANER_BATCH_SIZE;

  @Doc("Error messages in a job's error history are cut to this many characters.")
  @Min(1)
  @Max(MAX_ERROR_MESSAGE_MAX_CHARS)
  @JsonProperty
  private int errorMessageMaxChars = DEFAULT_ERROR_MESSAGE_MAX_CHARS;

  @Doc("Attempts of a job kind that sets none; a failure of the last discards the job.")
  @Min(1)
  @Max(MAX_MAX_ATTEMPTS)
  @JsonProperty
  private int defaultMaxAttempts = DEFAULT_MAX_ATTEMPTS;

  @Doc(
      "Timeout of one attempt of a job kind that sets none; past it the work is interrupted"
          + " and the attempt fails.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration defaultTimeout = DEFAULT_TIMEOUT;

  /**
   * Returns {@code jobs.queues}.
   *
   * @return queue name to workers
   */
  public Map<String, Integer> queues() {
    return queues;
  }

  /**
   * Returns {@code jobs.fetchLookback}.
   *
   * @return how far before the oldest waiting job a fetch starts reading
   */
  public Duration fetchLookback() {
    return fetchLookback;
  }

  /**
   * Returns {@code jobs.pollInterval}.
   *
   * @return the interval
   */
  public Duration pollInterval() {
    return pollInterval;
  }

  /**
   * Returns {@code jobs.retryBaseDelay}.
   *
   * @return the delay
   */
  public Duration retryBaseDelay() {
    return retryBaseDelay;
  }

  /**
   * Returns {@code jobs.retryMaxDelay}.
   *
   * @return the cap
   */
  public Duration retryMaxDelay() {
    return retryMaxDelay;
  }

  /**
   * Returns {@code jobs.rescueAfter}.
   *
   * @return the age
   */
  public Duration rescueAfter() {
    return rescueAfter;
  }

  /**
   * Returns {@code jobs.completedRetention}.
   *
   * @return the retention
   */
  public Duration completedRetention() {
    return completedRetention;
  }

  /**
   * Returns {@code jobs.discardedRetention}.
   *
   * @return the retention
   */
  public Duration discardedRetention() {
    return discardedRetention;
  }

  /**
   * Returns {@code jobs.maintenanceInterval}.
   *
   * @return the interval
   */
  public Duration maintenanceInterval() {
    return maintenanceInterval;
  }

  /**
   * Returns {@code jobs.cleanerBatchSize}.
   *
   * @return the batch size
   */
  public int cleanerBatchSize() {
    return cleanerBatchSize;
  }

  /**
   * Returns {@code jobs.errorMessageMaxChars}.
   *
   * @return the length
   */
  public int errorMessageMaxChars() {
    return errorMessageMaxChars;
  }

  /**
   * Returns {@code jobs.defaultMaxAttempts}.
   *
   * @return the attempts
   */
  public int defaultMaxAttempts() {
    return defaultMaxAttempts;
  }

  /**
   * Returns {@code jobs.defaultTimeout}.
   *
   * @return the timeout
   */
  public Duration defaultTimeout() {
    return defaultTimeout;
  }

  /**
   * Maps this section, with the keys of other sections the job module reads, to its settings.
   *
   * @param database the {@code database} section
   * @param shutdown the {@code shutdown} section
   * @return the job module's settings
   */
  public JobsModule.Settings settings(DatabaseConfig database, ShutdownConfig shutdown) {
    return new JobsModule.Settings(
        new JobSettings(
            queues,
            pollInterval.toJavaDuration(),
            fetchLookback.toJavaDuration(),
            retryBaseDelay.toJavaDuration(),
            retryMaxDelay.toJavaDuration(),
            rescueAfter.toJavaDuration(),
            completedRetention.toJavaDuration(),
            discardedRetention.toJavaDuration(),
            maintenanceInterval.toJavaDuration(),
            cleanerBatchSize,
            errorMessageMaxChars,
            database.listenReconnectBackoffCap().toJavaDuration()),
        defaultMaxAttempts,
        defaultTimeout.toJavaDuration(),
        shutdown.jobsTimeout().toJavaDuration(),
        shutdown.totalTimeout().toJavaDuration());
  }
}
