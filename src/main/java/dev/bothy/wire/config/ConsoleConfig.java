package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.console.ConsoleSettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code console} section: the operator console on the admin port. */
@Doc(
    "The operator console under /console on the admin port: its tokens are api.tokens with"
        + " admin:read to look and admin:write to act.")
public class ConsoleConfig {
  /**
   * Default of {@code console.readOnly}: actions are allowed to tokens with {@code admin:write},
   * the scope being the opt-in (ADR 0022).
   */
  public static final boolean DEFAULT_READ_ONLY = false;

  /** Default of {@code console.defaultPageSize}. */
  public static final int DEFAULT_PAGE_SIZE = 50;

  /** Default of {@code console.maxPageSize}. */
  public static final int DEFAULT_MAX_PAGE_SIZE = 500;

  /** Default of {@code console.countCap}. */
  public static final int DEFAULT_COUNT_CAP = 10_000;

  /** Default of {@code console.maxBulkJobs}. */
  public static final int DEFAULT_MAX_BULK_JOBS = 100;

  /** Default of {@code console.sampleInterval}. */
  public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.seconds(10);

  /** Default of {@code console.historyWindow}. */
  public static final Duration DEFAULT_HISTORY_WINDOW = Duration.hours(1);

  @Doc(
      "How often the process samples the log's head, each worker consumer's lag and pending age,"
          + " the relay's lag and the jobs created, completed and discarded since the previous"
          + " sample into the ring buffer the console's charts draw; four short reads per"
          + " sample.")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration sampleInterval = DEFAULT_SAMPLE_INTERVAL;

  @Doc(
      "How far back the ring buffer reaches; it keeps historyWindow / sampleInterval samples in"
          + " memory and drops the oldest. Must be longer than console.sampleInterval.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration historyWindow = DEFAULT_HISTORY_WINDOW;

  @Doc(
      "Refuse every action (job retry, cancel and bulk, dead letter replay) with 403 read_only,"
          + " even for a token with admin:write; looking stays allowed with admin:read.")
  @JsonProperty
  private boolean readOnly = DEFAULT_READ_ONLY;

  @Doc(
      "Rows per page of a console list (jobs, dead letters, subscriptions, attempts) when a"
          + " request names no limit.")
  @Min(1)
  @Max(10_000)
  @JsonProperty
  private int defaultPageSize = DEFAULT_PAGE_SIZE;

  @Doc("The largest limit a console list takes; a larger one is a 400 invalid_request.")
  @Min(1)
  @Max(10_000)
  @JsonProperty
  private int maxPageSize = DEFAULT_MAX_PAGE_SIZE;

  @Doc(
      "Counts of jobs, dead letters and attempts stop here and answer capped: true, so a count"
          + " reads at most this many rows plus one however large the table grows.")
  @Min(1)
  @Max(10_000_000)
  @JsonProperty
  private int countCap = DEFAULT_COUNT_CAP;

  @Doc("The most job ids one bulk retry or cancel takes; more is a 400 invalid_request.")
  @Min(1)
  @Max(10_000)
  @JsonProperty
  private int maxBulkJobs = DEFAULT_MAX_BULK_JOBS;

  /**
   * Returns {@code console.readOnly}.
   *
   * @return whether every action is refused
   */
  public boolean readOnly() {
    return readOnly;
  }

  /**
   * Returns {@code console.defaultPageSize}.
   *
   * @return jobs per page without a limit
   */
  public int defaultPageSize() {
    return defaultPageSize;
  }

  /**
   * Returns {@code console.maxPageSize}.
   *
   * @return the largest page
   */
  public int maxPageSize() {
    return maxPageSize;
  }

  /**
   * Returns {@code console.sampleInterval}.
   *
   * @return the time between two samples
   */
  public Duration sampleInterval() {
    return sampleInterval;
  }

  /**
   * Returns {@code console.historyWindow}.
   *
   * @return how far back the history reaches
   */
  public Duration historyWindow() {
    return historyWindow;
  }

  /**
   * Maps this section and {@code api.tokens} to the console's settings.
   *
   * @param api the {@code api} section, for its tokens
   * @return the settings
   */
  public ConsoleSettings settings(ApiConfig api) {
    return new ConsoleSettings(
        readOnly,
        defaultPageSize,
        maxPageSize,
        countCap,
        maxBulkJobs,
        sampleInterval.toJavaDuration(),
        historyWindow.toJavaDuration(),
        api.apiTokens());
  }
}
