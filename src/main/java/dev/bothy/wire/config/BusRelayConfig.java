package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.RelaySettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code bus.relay} subsection: the relay from the event log to the {@code EVENTS} stream. */
@Doc("The relay from the event log to the `EVENTS` stream; it runs only with `bus.nats.url`.")
public class BusRelayConfig {
  /** Default of {@code bus.relay.batchSize}. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  /** Upper bound of {@code bus.relay.batchSize}: a read of the log must stay short. */
  public static final int MAX_BATCH_SIZE = 10_000;

  /** Default of {@code bus.relay.window}. */
  public static final int DEFAULT_WINDOW = 100;

  /** Upper bound of {@code bus.relay.window}: the messages in flight live in the heap. */
  public static final int MAX_WINDOW = 10_000;

  /** Default of {@code bus.relay.pollInterval}. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.seconds(1);

  /** Default of {@code bus.relay.publishAckTimeout}. */
  public static final Duration DEFAULT_PUBLISH_ACK_TIMEOUT = Duration.seconds(5);

  /** Default of {@code bus.relay.leaseTimeout}. */
  public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.seconds(15);

  @Doc("Most events the relay reads from the log in one round.")
  @Min(1)
  @Max(MAX_BATCH_SIZE)
  @JsonProperty
  private int batchSize = DEFAULT_BATCH_SIZE;

  @Doc(
      "Most publishes in flight at once (sent, ack not yet received); not more than"
          + " `bus.relay.batchSize`.")
  @Min(1)
  @Max(MAX_WINDOW)
  @JsonProperty
  private int window = DEFAULT_WINDOW;

  @Doc("How often the relay reads the log when no notification arrives.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration pollInterval = DEFAULT_POLL_INTERVAL;

  @Doc(
      "Longest wait for the server's ack of one publish; after it the relay republishes the"
          + " event with the same message id. Shorter than"
          + " `bus.nats.stream.duplicateWindow`, so the server drops the copy.")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration publishAckTimeout = DEFAULT_PUBLISH_ACK_TIMEOUT;

  @Doc(
      "How long the relay's lease outlives a holder that went silent (a hung process, a cut"
          + " network): the server ends the lease's session after this long without a statement,"
          + " and another process takes over. A killed process or a terminated backend frees it"
          + " at once. At least twice `bus.relay.pollInterval` plus `bus.relay.publishAckTimeout`.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration leaseTimeout = DEFAULT_LEASE_TIMEOUT;

  /**
   * Returns {@code bus.relay.leaseTimeout}.
   *
   * @return the timeout
   */
  public Duration leaseTimeout() {
    return leaseTimeout;
  }

  /**
   * Returns {@code bus.relay.batchSize}.
   *
   * @return the batch size
   */
  public int batchSize() {
    return batchSize;
  }

  /**
   * Returns {@code bus.relay.window}.
   *
   * @return the window
   */
  public int window() {
    return window;
  }

  /**
   * Returns {@code bus.relay.pollInterval}.
   *
   * @return the interval
   */
  public Duration pollInterval() {
    return pollInterval;
  }

  /**
   * Returns {@code bus.relay.publishAckTimeout}.
   *
   * @return the timeout
   */
  public Duration publishAckTimeout() {
    return publishAckTimeout;
  }

  /**
   * Maps the relay keys to the module's relay settings.
   *
   * @return the settings
   */
  RelaySettings settings() {
    return new RelaySettings(
        batchSize,
        window,
        pollInterval.toJavaDuration(),
        publishAckTimeout.toJavaDuration(),
        leaseTimeout.toJavaDuration());
  }
}
