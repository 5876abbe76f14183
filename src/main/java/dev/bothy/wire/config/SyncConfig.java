package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.sync.SyncModule;
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

  /** Default of {@code sync.eventRetention}. */
  public static final Duration DEFAULT_EVENT_RETENTION = Duration.days(30);

  /** Default of {@code sync.eventLogPartitionSize}; the changelog's first partition has it. */
  public static final long DEFAULT_EVENT_LOG_PARTITION_SIZE = 1_000_000;

  /** Upper bound of {@code sync.eventLogPartitionSize}. */
  public static final long MAX_EVENT_LOG_PARTITION_SIZE = 1_000_000_000;

  /** Default of {@code sync.partitionsAhead}. */
  public static final int DEFAULT_PARTITIONS_AHEAD = 2;

  /** Upper bound of {@code sync.partitionsAhead}. */
  public static final int MAX_PARTITIONS_AHEAD = 100;

  /** Default of {@code sync.partitionMaintenanceInterval}. */
  public static final Duration DEFAULT_PARTITION_MAINTENANCE_INTERVAL = Duration.minutes(5);

  /** Default of {@code sync.maxConcurrentAppends}. */
  public static final int DEFAULT_MAX_CONCURRENT_APPENDS = 2;

  /** Upper bound of {@code sync.maxConcurrentAppends}. */
  public static final int MAX_CONCURRENT_APPENDS_LIMIT = 1000;

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
      "Units of one process that may hold or wait for the event_seq counter row at once;"
          + " the others queue inside the process, which keeps the row's lock queue short"
          + " when many writers append (docs/benchmarks.md, append).")
  @Min(1)
  @Max(MAX_CONCURRENT_APPENDS_LIMIT)
  @JsonProperty
  private int maxConcurrentAppends = DEFAULT_MAX_CONCURRENT_APPENDS;

  @Doc(
      "How long events are kept: a partition is dropped whole once its newest event is older;"
          + " a reader below the oldest kept number is told to resync.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration eventRetention = DEFAULT_EVENT_RETENTION;

  @Doc("Numbers per partition of event_log; retention drops whole partitions.")
  @Min(1)
  @Max(MAX_EVENT_LOG_PARTITION_SIZE)
  @JsonProperty
  private long eventLogPartitionSize = DEFAULT_EVENT_LOG_PARTITION_SIZE;

  @Doc("Partitions the maintenance keeps ready beyond the head of the log.")
  @Min(1)
  @Max(MAX_PARTITIONS_AHEAD)
  @JsonProperty
  private int partitionsAhead = DEFAULT_PARTITIONS_AHEAD;

  @Doc(
      "How often a worker or all process runs the partition maintenance (one process at a"
          + " time, through an advisory lock).")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration partitionMaintenanceInterval = DEFAULT_PARTITION_MAINTENANCE_INTERVAL;

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
          + " a resync signal, so it never stalls the tail or the others. At least"
          + " sync.tailBatchSize, the largest burst one tail read hands over.")
  @Min(1)
  @Max(MAX_TAIL_SUBSCRIBER_BUFFER)
  @JsonProperty
  private int tailSubscriberBuffer = DEFAULT_TAIL_SUBSCRIBER_BUFFER;

  /**
   * Returns {@code sync.maxConcurrentAppends}.
   *
   * @return the number of units
   */
  public int maxConcurrentAppends() {
    return maxConcurrentAppends;
  }

  /**
   * Returns {@code sync.eventRetention}.
   *
   * @return the retention
   */
  public Duration eventRetention() {
    return eventRetention;
  }

  /**
   * Returns {@code sync.eventLogPartitionSize}.
   *
   * @return numbers per partition
   */
  public long eventLogPartitionSize() {
    return eventLogPartitionSize;
  }

  /**
   * Returns {@code sync.partitionsAhead}.
   *
   * @return partitions beyond the head
   */
  public int partitionsAhead() {
    return partitionsAhead;
  }

  /**
   * Returns {@code sync.partitionMaintenanceInterval}.
   *
   * @return the interval
   */
  public Duration partitionMaintenanceInterval() {
    return partitionMaintenanceInterval;
  }

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

  /**
   * Maps this section, with the keys of other sections the event log module reads, to its settings.
   *
   * @param consumer the {@code consumer} section
   * @param database the {@code database} section
   * @param shutdown the {@code shutdown} section
   * @return the event log module's settings
   */
  public SyncModule.Settings settings(
      ConsumerConfig consumer, DatabaseConfig database, ShutdownConfig shutdown) {
    return new SyncModule.Settings(
        maxPayloadBytes,
        maxConcurrentAppends,
        database.lockTimeout().toJavaDuration(),
        eventLogPartitionSize,
        partitionsAhead,
        eventRetention.toJavaDuration(),
        partitionMaintenanceInterval.toJavaDuration(),
        tailBatchSize,
        tailSubscriberBuffer,
        tailPollInterval.toJavaDuration(),
        consumer.batchSize(),
        consumer.pollInterval().toJavaDuration(),
        database.listenReconnectBackoffCap().toJavaDuration(),
        shutdown.totalTimeout().toJavaDuration());
  }
}
