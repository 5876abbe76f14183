package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code sync} section: the event log. */
@Doc("The event log.")
public class SyncConfig {
  /** Default of {@code sync.maxPayloadBytes}: 64 KiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;

  /** Upper bound of {@code sync.maxPayloadBytes}: events carry facts, not documents. */
  public static final int MAX_PAYLOAD_BYTES_LIMIT = 1024 * 1024;

  /** Default of {@code sync.tailPollInterval}. */
  public static final Duration DEFAULT_TAIL_POLL_INTERVAL = Duration.seconds(1);

  /** Lower bound of {@code sync.tailPollInterval}, in ms: less would be a busy loop. */
  public static final long MIN_TAIL_POLL_INTERVAL_MILLIS = 10;

  /** Default of {@code sync.tailBatchSize}. */
  public static final int DEFAULT_TAIL_BATCH_SIZE = 500;

  /** Upper bound of {@code sync.tailBatchSize}: a read must stay short. */
  public static final int MAX_TAIL_BATCH_SIZE = 10_000;

  /** Default of {@code sync.tailSubscriberBuffer}. */
  public static final int DEFAULT_TAIL_SUBSCRIBER_BUFFER = 1000;

  /** Upper bound of {@code sync.tailSubscriberBuffer}: the buffers live in the heap. */
  public static final int MAX_TAIL_SUBSCRIBER_BUFFER = 1_000_000;

  @Doc(
      "Largest payload of one event, in bytes of its JSON; an append over it is refused as"
          + " invalid and nothing of its unit is written.")
  @Min(1)
  @Max(MAX_PAYLOAD_BYTES_LIMIT)
  @JsonProperty
  private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

  @Doc(
      "How often the log tail of an api or all process reads the log when no notification"
          + " arrives; also the first reconnection wait of its LISTEN connection.")
  @NotNull
  @MinDuration(value = MIN_TAIL_POLL_INTERVAL_MILLIS, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration tailPollInterval = DEFAULT_TAIL_POLL_INTERVAL;

  @Doc("Most events the log tail reads in one query.")
  @Min(1)
  @Max(MAX_TAIL_BATCH_SIZE)
  @JsonProperty
  private int tailBatchSize = DEFAULT_TAIL_BATCH_SIZE;

  @Doc(
      "Events a subscriber of the log tail may lag behind; one that lags more is dropped with"
          + " a resync signal, so it never stalls the tail or the others.")
  @Min(1)
  @Max(MAX_TAIL_SUBSCRIBER_BUFFER)
  @JsonProperty
  private int tailSubscriberBuffer = DEFAULT_TAIL_SUBSCRIBER_BUFFER;

  /**
   * Returns {@code sync.tailPollInterval}.
   *
   * @return the interval
   */
  public Duration tailPollInterval() {
    return tailPollInterval;
  }

  /**
   * Returns {@code sync.tailBatchSize}.
   *
   * @return the batch size
   */
  public int tailBatchSize() {
    return tailBatchSize;
  }

  /**
   * Returns {@code sync.tailSubscriberBuffer}.
   *
   * @return the buffer size in events
   */
  public int tailSubscriberBuffer() {
    return tailSubscriberBuffer;
  }

  /**
   * Returns {@code sync.maxPayloadBytes}.
   *
   * @return the limit in bytes
   */
  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }
}
