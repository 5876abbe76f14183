package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.BusDispatchModule;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code bus.dispatch} subsection: the dispatch of bus consumers on either transport. */
@Doc(
    "The dispatch of bus consumers: the dedupe table `event_deliveries`, the dead letters and the"
        + " `bus.dispatch` jobs of the log transport. Used with and without `bus.nats.url`.")
public class BusDispatchConfig {
  /** Default of {@code bus.dispatch.deliveryRetention}: longer than the default log retention. */
  public static final Duration DEFAULT_DELIVERY_RETENTION = Duration.days(35);

  /** Default of {@code bus.dispatch.deliveryRetentionInterval}. */
  public static final Duration DEFAULT_DELIVERY_RETENTION_INTERVAL = Duration.hours(1);

  /** Default of {@code bus.dispatch.jobTimeout}. */
  public static final Duration DEFAULT_JOB_TIMEOUT = Duration.minutes(5);

  /** Default of {@code bus.dispatch.readAhead}. */
  public static final int DEFAULT_READ_AHEAD = 32;

  /** Default of {@code bus.dispatch.readAheadKeep}. */
  public static final Duration DEFAULT_READ_AHEAD_KEEP = Duration.seconds(1);

  @Doc(
      "How long a row of `event_deliveries` and a dead letter are kept. At least"
          + " `sync.eventRetention`, and with `bus.nats.url` at least `bus.nats.stream.maxAge`:"
          + " a delivery row must outlive every redelivery of its event, or the handler runs"
          + " twice.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration deliveryRetention = DEFAULT_DELIVERY_RETENTION;

  @Doc("How often the job `bus.delivery_retention` deletes what is past the retention.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MINUTES)
  @MaxDuration(value = 7, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration deliveryRetentionInterval = DEFAULT_DELIVERY_RETENTION_INTERVAL;

  @Doc(
      "The longest one `bus.dispatch` job (one delivery to one handler on the log transport) may"
          + " run; past it the attempt fails like a retryable failure. Below `jobs.rescueAfter`.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration jobTimeout = DEFAULT_JOB_TIMEOUT;

  @Doc(
      "On the log transport, how many events a `bus.dispatch` job reads when its event was not"
          + " read already: its own and the ones after it, kept for the jobs of the next events"
          + " (one statement for a window of jobs instead of one per job). A worker keeps at most"
          + " four times this many events in memory (at worst four times this times"
          + " `sync.maxPayloadBytes`). 1 reads each job's event alone.")
  @Min(1)
  @Max(256)
  @JsonProperty
  private int readAhead = DEFAULT_READ_AHEAD;

  @Doc(
      "How long an event read ahead (`bus.dispatch.readAhead`) is served from memory; past it a"
          + " job reads its event again. The jobs of a busy consumer find theirs within"
          + " milliseconds; the bound keeps an event that retention removed from being served"
          + " later than this after its read.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration readAheadKeep = DEFAULT_READ_AHEAD_KEEP;

  /**
   * Returns {@code bus.dispatch.deliveryRetention}.
   *
   * @return the retention
   */
  public Duration deliveryRetention() {
    return deliveryRetention;
  }

  /**
   * Returns {@code bus.dispatch.deliveryRetentionInterval}.
   *
   * @return the interval
   */
  public Duration deliveryRetentionInterval() {
    return deliveryRetentionInterval;
  }

  /**
   * Returns {@code bus.dispatch.jobTimeout}.
   *
   * @return the timeout
   */
  public Duration jobTimeout() {
    return jobTimeout;
  }

  /**
   * Returns {@code bus.dispatch.readAhead}.
   *
   * @return the events one read asks for
   */
  public int readAhead() {
    return readAhead;
  }

  /**
   * Returns {@code bus.dispatch.readAheadKeep}.
   *
   * @return how long an event read ahead is served
   */
  public Duration readAheadKeep() {
    return readAheadKeep;
  }

  /**
   * Maps the dispatch keys, with two of {@code jobs}, to the module's settings.
   *
   * @param jobs the {@code jobs} section
   * @return the settings
   */
  public BusDispatchModule.Settings settings(JobsConfig jobs) {
    return new BusDispatchModule.Settings(
        deliveryRetention.toJavaDuration(),
        deliveryRetentionInterval.toJavaDuration(),
        jobTimeout.toJavaDuration(),
        jobs.cleanerBatchSize(),
        jobs.errorMessageMaxChars(),
        readAhead,
        readAheadKeep.toJavaDuration());
  }
}
