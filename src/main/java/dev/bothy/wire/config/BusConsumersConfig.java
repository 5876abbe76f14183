package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.BusConsumerSettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code bus.consumers} subsection: bus consumers on NATS, the durables and their pulls. */
@Doc(
    "Bus consumers on NATS: one durable pull consumer per bus consumer on `EVENTS`. Used by"
        + " `worker` and `all` only with `bus.nats.url`; without it bus consumers run on the log"
        + " and `bus.dispatch.jobTimeout` bounds a handler instead.")
public class BusConsumersConfig {
  /** Default of {@code bus.consumers.ackWait}. */
  public static final Duration DEFAULT_ACK_WAIT = Duration.seconds(30);

  /** Default of {@code bus.consumers.keepAliveInterval}. */
  public static final Duration DEFAULT_KEEP_ALIVE_INTERVAL = Duration.seconds(10);

  /** Default of {@code bus.consumers.maxAckPending}. */
  public static final int DEFAULT_MAX_ACK_PENDING = 10_000;

  /** Default of {@code bus.consumers.fetchBatch}. */
  public static final int DEFAULT_FETCH_BATCH = 4;

  /** Default of {@code bus.consumers.fetchWait}. */
  public static final Duration DEFAULT_FETCH_WAIT = Duration.seconds(5);

  /** Default of {@code bus.consumers.infoInterval}. */
  public static final Duration DEFAULT_INFO_INTERVAL = Duration.seconds(15);

  @Doc(
      "How long the server waits for a message's answer before it delivers it again (the"
          + " durable's `ackWait`). A running handler's message gets `inProgress` every"
          + " `bus.consumers.keepAliveInterval`, which must be shorter.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration ackWait = DEFAULT_ACK_WAIT;

  @Doc(
      "How often a message whose handler still runs gets `inProgress`, which restarts its"
          + " `ackWait`; only while dispatch runs. Shorter than `bus.consumers.ackWait`.")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 30, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration keepAliveInterval = DEFAULT_KEEP_ALIVE_INTERVAL;

  @Doc(
      "Most messages of one durable delivered and not answered (the durable's"
          + " `maxAckPending`), across every worker. A nak'd message waiting out its delay (up to"
          + " 10 minutes) counts: sized so a long outage of a dependency parks many events before"
          + " the durable stalls. At least `bus.consumers.fetchBatch`.")
  @Min(1)
  @Max(1_000_000)
  @JsonProperty
  private int maxAckPending = DEFAULT_MAX_ACK_PENDING;

  @Doc(
      "Most messages one pull of a worker asks for. Small: the messages of a pull wait for"
          + " each other, and only the one being handled gets `inProgress`, so `fetchBatch`"
          + " times the longest handler should stay below `bus.consumers.ackWait`.")
  @Min(1)
  @Max(256)
  @JsonProperty
  private int fetchBatch = DEFAULT_FETCH_BATCH;

  @Doc(
      "Longest wait of one pull for messages; also the retry delay after a failed pull and"
          + " about the longest a stop waits for an idle pull. At least 1 s (jnats' floor).")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration fetchWait = DEFAULT_FETCH_WAIT;

  @Doc(
      "How often each worker samples its durables' consumer info for the gauges"
          + " `bothy_bus_consumer_pending`, `_ack_pending` and `_redelivered`.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration infoInterval = DEFAULT_INFO_INTERVAL;

  /**
   * Returns {@code bus.consumers.ackWait}.
   *
   * @return the wait
   */
  public Duration ackWait() {
    return ackWait;
  }

  /**
   * Returns {@code bus.consumers.keepAliveInterval}.
   *
   * @return the interval
   */
  public Duration keepAliveInterval() {
    return keepAliveInterval;
  }

  /**
   * Returns {@code bus.consumers.maxAckPending}.
   *
   * @return the limit
   */
  public int maxAckPending() {
    return maxAckPending;
  }

  /**
   * Returns {@code bus.consumers.fetchBatch}.
   *
   * @return the batch
   */
  public int fetchBatch() {
    return fetchBatch;
  }

  /**
   * Maps the keys to the bus's consumer settings.
   *
   * @return the settings
   */
  public BusConsumerSettings settings() {
    return new BusConsumerSettings(
        ackWait.toJavaDuration(),
        keepAliveInterval.toJavaDuration(),
        maxAckPending,
        fetchBatch,
        fetchWait.toJavaDuration(),
        infoInterval.toJavaDuration());
  }
}
