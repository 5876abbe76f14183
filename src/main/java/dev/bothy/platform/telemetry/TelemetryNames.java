package dev.bothy.platform.telemetry;

import java.util.List;

/**
 * The span names and attribute keys of Bothy's manual spans; every key is listed in {@link
 * #ATTRIBUTE_KEYS}, the allowlist a collector configuration should keep.
 */
public final class TelemetryNames {
  /** The instrumentation scope of Bothy's manual spans. */
  public static final String SCOPE = "dev.bothy";

  /** The span of one job's work; its name is this prefix, a space and the kind. */
  public static final String JOB_SPAN_PREFIX = "job";

  /** The span of one worker consumer round; its name is this prefix, a space and the consumer. */
  public static final String CONSUMER_ROUND_SPAN_PREFIX = "consumer round";

  /** The job's kind, for example {@code sync.partition_maintenance}. */
  public static final String JOB_KIND = "bothy.job.kind";

  /** The job's attempt, from 1. */
  public static final String JOB_ATTEMPT = "bothy.job.attempt";

  /** The job's id (a UUIDv7). */
  public static final String JOB_ID = "bothy.job.id";

  /**
   * The name of a worker consumer ({@code push}, {@code webhooks}); also the label of its gauges.
   */
  public static final String CONSUMER_NAME = "bothy.consumer.name";

  /** An event's number in the log. */
  public static final String EVENT_SEQ = "bothy.event.seq";

  /** The first event number of a range the retention removed before a consumer read it. */
  public static final String EVENT_LOST_FROM = "bothy.event.lost_from";

  /** The last event number of a range the retention removed before a consumer read it. */
  public static final String EVENT_LOST_TO = "bothy.event.lost_to";

  /** Every attribute key of Bothy's spans and logs, the collector's allowlist. */
  public static final List<String> ATTRIBUTE_KEYS =
      List.of(
          JOB_KIND, JOB_ATTEMPT, JOB_ID, CONSUMER_NAME, EVENT_SEQ, EVENT_LOST_FROM, EVENT_LOST_TO);

  private TelemetryNames() {}
}
