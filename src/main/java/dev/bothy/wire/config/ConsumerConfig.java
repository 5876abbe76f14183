package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code consumer} section: the worker consumers of the event log. */
@Doc(
    "The worker consumers of the event log (push, webhooks, and bus for the log transport of bus consumers).")
public class ConsumerConfig {
  /** Default of {@code consumer.batchSize}. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Upper bound of {@code consumer.batchSize}. */
  public static final int MAX_BATCH_SIZE = 10_000;

  /** Default of {@code consumer.pollInterval}. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.seconds(1);

  /**
   * Default of {@code consumer.pendingAlertAfter}: far above a worker restart (a stop within {@code
   * shutdown.totalTimeout} plus a few polls), far below the default {@code sync.eventRetention}.
   * The alert rule in infra/observability/prometheus/rules holds the same number, kept equal by a
   * test.
   */
  public static final Duration DEFAULT_PENDING_ALERT_AFTER = Duration.minutes(15);

  @Doc(
      "Most events one consumer round reads and handles in one transaction; short rounds keep"
          + " the cursor lock and the read lock on event_log brief.")
  @Min(1)
  @Max(MAX_BATCH_SIZE)
  @JsonProperty
  private int batchSize = DEFAULT_BATCH_SIZE;

  @Doc(
      "How often each consumer runs a round without a notification; also the first"
          + " reconnection wait of its LISTEN connection.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration pollInterval = DEFAULT_POLL_INTERVAL;

  @Doc(
      "Age of the oldest unprocessed event of a worker consumer before the alert"
          + " BothyEventConsumerLag fires; must be shorter than sync.eventRetention.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration pendingAlertAfter = DEFAULT_PENDING_ALERT_AFTER;

  /**
   * Returns {@code consumer.batchSize}.
   *
   * @return the batch size
   */
  public int batchSize() {
    return batchSize;
  }

  /**
   * Returns {@code consumer.pollInterval}.
   *
   * @return the interval
   */
  public Duration pollInterval() {
    return pollInterval;
  }

  /**
   * Returns {@code consumer.pendingAlertAfter}.
   *
   * @return the age
   */
  public Duration pendingAlertAfter() {
    return pendingAlertAfter;
  }
}
