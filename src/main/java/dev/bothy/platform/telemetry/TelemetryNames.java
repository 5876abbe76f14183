package dev.bothy.platform.telemetry;

import java.util.List;
import java.util.stream.Stream;

/**
 * The span names and attribute keys of Bothy's manual spans, and the closed set of keys its log
 * lines may carry. Every span attribute key is listed in {@link #ATTRIBUTE_KEYS}, the allowlist a
 * collector configuration should keep; every log key in {@link #LOG_KEYS}, which a test holds the
 * log lines of the consumers, jobs, tail, listener, loops and the API to.
 */
public final class TelemetryNames {
  /** The instrumentation scope of Bothy's manual spans. */
  public static final String SCOPE = "dev.bothy";

  /** The span of one job's work; its name is this prefix, a space and the kind. */
  public static final String JOB_SPAN_PREFIX = "job";

  /** The span of one worker consumer round; its name is this prefix, a space and the consumer. */
  public static final String CONSUMER_ROUND_SPAN_PREFIX = "consumer round";

  /** The span of the publishing part of one bus relay round. */
  public static final String BUS_RELAY_ROUND_SPAN = "bus relay round";

  /** The name of a JetStream stream the relay feeds, such as {@code EVENTS}. */
  public static final String BUS_STREAM = "bothy.bus.stream";

  /** How many events a bus relay round publishes. */
  public static final String BUS_EVENTS = "bothy.bus.events";

  /** A bus handler's name, such as {@code system.echo}; also the label of its dispatch metrics. */
  public static final String BUS_HANDLER = "bothy.bus.handler";

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

  /** The webhook subscription a delivery or a change of state is about (its UUIDv7). */
  public static final String WEBHOOK_SUBSCRIPTION_ID = "bothy.webhook.subscription_id";

  /** Every attribute key of Bothy's spans and logs, the collector's allowlist. */
  public static final List<String> ATTRIBUTE_KEYS =
      List.of(
          JOB_KIND,
          JOB_ATTEMPT,
          JOB_ID,
          CONSUMER_NAME,
          EVENT_SEQ,
          EVENT_LOST_FROM,
          EVENT_LOST_TO,
          WEBHOOK_SUBSCRIPTION_ID,
          BUS_STREAM,
          BUS_EVENTS,
          BUS_HANDLER);

  /**
   * The class of an exception a log line reports (OpenTelemetry's {@code error.type}); the message
   * is never logged, since a handler or the database driver may have put data in it.
   */
  public static final String ERROR_TYPE = "error.type";

  /** The SQLSTATE of the first SQL error among an exception's causes, or {@code none}. */
  public static final String SQLSTATE = "sqlstate";

  /**
   * Every key a log line of Bothy's modules may carry as {@code key=value}: the attribute keys, the
   * error keys and the operational keys of one line each (names, numbers and durations, never a
   * payload or a message). A key not in this list is a test failure, so a new one is added here and
   * described in docs/observability/signals.md.
   */
  public static final List<String> LOG_KEYS =
      Stream.concat(
              ATTRIBUTE_KEYS.stream(),
              Stream.of(
                  ERROR_TYPE,
                  SQLSTATE,
                  // Names of things: consumers, queues, kinds, loops, phases and steps.
                  "consumers",
                  "queue",
                  "queues",
                  "kinds",
                  "loop",
                  "phase",
                  "step",
                  "channel",
                  "application_name",
                  "connection_name",
                  "stream",
                  // A bus consumer's NATS durable, and the subjects its durable filters.
                  "bothy.bus.durable",
                  "filter_subjects",
                  "fields",
                  // A NATS stream's description, the mark of the installation that owns it.
                  "description",
                  "expected_description",
                  // A NATS server's error reduced to letters, or why a webhook subscription was
                  // disabled (gap, failing, gone).
                  "reason",
                  "client_id",
                  "output",
                  "status",
                  "next",
                  // Numbers: event numbers, counts, attempts and durations.
                  "after",
                  "after_seq",
                  "min_retained_seq",
                  "attempt",
                  "max_attempts",
                  "jobs",
                  "handed_back",
                  "rescued",
                  "periodic_inserted",
                  "deleted",
                  "deleted_completed",
                  "deleted_discarded",
                  "created",
                  "dropped",
                  "elapsed_ms",
                  "budget_ms",
                  "backoff_ms",
                  "delay_ms",
                  // The embedded server's own lines.
                  "data_directory",
                  "durable",
                  "port",
                  "pid",
                  "server_version",
                  // The start: role, build and schema versions, the instance, the hooks.
                  "role",
                  "version",
                  "hooks",
                  "instance_id",
                  "setup_completed",
                  "schema_version",
                  "database_schema_version",
                  "binary_schema_version",
                  "min_server_version",
                  "changesets_applied",
                  // The bus relay: its cursor and the stream's last Bothy-Seq.
                  "cursor",
                  "stream_last_seq",
                  "from_seq",
                  "to_seq",
                  // The replay of a projection: its tables, the rows reset, where it restarts.
                  "tables",
                  "rows",
                  "delivery_rows",
                  "restart"))
          .toList();

  private TelemetryNames() {}
}
