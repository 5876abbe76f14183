package dev.bothy.wire;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.Timer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a Dropwizard metric becomes a Prometheus family: its name, type, help text and scale,
 * following Prometheus's naming rules (what {@code promtool check metrics} checks).
 *
 * <ul>
 *   <li>The name: the Dropwizard name with every character outside {@code [a-zA-Z0-9_]} replaced by
 *       {@code _}, camelCase split into snake_case, lower case ({@code
 *       bothy.pool.ActiveConnections} is {@code bothy_pool_active_connections}); a few names are
 *       rewritten by {@link #RENAMES} where the plain rule would lose a unit or a meaning.
 *   <li>A timer's family ends in {@code _seconds} ({@code bothy.event_log.seq_lock_held} is {@code
 *       bothy_event_log_seq_lock_held_seconds}); HikariCP's two histograms in milliseconds are
 *       scaled to seconds.
 *   <li>Timers and histograms are summaries, except a {@link BucketTimer}, which is a histogram
 *       with its buckets.
 *   <li>The help text of Bothy's own families and the pool's is in {@link #HELP}; every other
 *       family gets one that names its Dropwizard metric.
 * </ul>
 *
 * <p>A renamed family changes every rule and dashboard that reads it: list it in {@code
 * docs/observability/signals.md} and the CHANGELOG.
 */
final class PrometheusFamilies {
  /** How the family is exported. */
  enum Type {
    GAUGE,
    COUNTER,
    SUMMARY,
    HISTOGRAM
  }

  /**
   * One family.
   *
   * @param name the Prometheus name, without {@code _total} for a counter
   * @param type how it is exported
   * @param help its HELP text
   * @param scale the factor a gauge's or histogram's values are multiplied by (1 unless scaled to
   *     seconds)
   */
  record Family(String name, Type type, String help, double scale) {}

  private record Rename(Pattern dropwizard, String prometheus, double scale) {}

  private static final double MILLIS = 0.001;

  /** Names the plain rule would get wrong, by their Dropwizard name; first match wins. */
  private static final List<Rename> RENAMES =
      List.of(
          new Rename(Pattern.compile("bothy\\.pool\\.Usage"), "bothy_pool_usage_seconds", MILLIS),
          new Rename(
              Pattern.compile("bothy\\.pool\\.ConnectionCreation"),
              "bothy_pool_connection_creation_seconds",
              MILLIS),
          new Rename(
              Pattern.compile("bothy\\.pool\\.ConnectionTimeoutRate"),
              "bothy_pool_connection_timeouts",
              1),
          // Dropwizard's health check executor: threads created, running, terminated. A counter
          // may not end in _created, and the pool's name is no unit.
          new Rename(
              Pattern.compile("TimeBoundHealthCheck-pool\\.created"),
              "dropwizard_health_check_threads_started",
              1),
          new Rename(
              Pattern.compile("TimeBoundHealthCheck-pool\\.(running|terminated)"),
              "dropwizard_health_check_threads_$1",
              1),
          // Logback's events per level; a counter may not end in _info.
          new Rename(
              Pattern.compile("ch\\.qos\\.logback\\.core\\.Appender\\.(\\w+)"),
              "logback_appender_$1_events",
              1),
          // Dropwizard's JVM metrics (registered by the jar's main): units in the name, times in
          // seconds, and no gauge ending in _count, which the text format reserves for summaries.
          new Rename(Pattern.compile("jvm\\.attribute\\.uptime"), "jvm_uptime_seconds", MILLIS),
          new Rename(Pattern.compile("jvm\\.gc\\.(.+)\\.count"), "jvm_gc_$1_collections", 1),
          new Rename(Pattern.compile("jvm\\.gc\\.(.+)\\.time"), "jvm_gc_$1_seconds", MILLIS),
          new Rename(
              Pattern.compile("jvm\\.memory\\.(.+)\\.(committed|init|max|used|used-after-gc)"),
              "jvm_memory_$1_$2_bytes",
              1),
          new Rename(
              Pattern.compile("jvm\\.buffers\\.(.+)\\.(capacity|used)"),
              "jvm_buffers_$1_$2_bytes",
              1),
          new Rename(Pattern.compile("jvm\\.buffers\\.(.+)\\.count"), "jvm_buffers_$1_buffers", 1),
          new Rename(Pattern.compile("jvm\\.threads\\.count"), "jvm_threads", 1),
          new Rename(Pattern.compile("jvm\\.threads\\.(.+)\\.count"), "jvm_threads_$1", 1));

  /** The HELP text of Bothy's families and the pool's, by Prometheus name. */
  static final Map<String, String> HELP =
      Map.ofEntries(
          Map.entry("bothy_process_role", "Always 1; the label tells the role of the process."),
          Map.entry(
              "bothy_event_log_head_seq",
              "The highest committed event number, 0 for an empty log."),
          Map.entry(
              "bothy_event_log_min_retained_seq", "The oldest event number still in the log."),
          Map.entry(
              "bothy_event_log_appended_events",
              "Events appended by the committed units of this process."),
          Map.entry(
              "bothy_event_log_append_batch_size", "Events per committed unit that appended."),
          Map.entry(
              "bothy_event_log_seq_lock_held_seconds",
              "Per committed appending unit: from the event_seq counter update until the commit"
                  + " returned."),
          Map.entry("bothy_jobs", "Rows of the jobs table per queue and state."),
          Map.entry("bothy_jobs_work_seconds", "How long job work functions ran, every outcome."),
          Map.entry("bothy_jobs_failures", "Failed job attempts, timeouts included."),
          Map.entry("bothy_jobs_discards", "Jobs discarded by the failure of their last attempt."),
          Map.entry("bothy_jobs_fetch_seconds", "Round trip of a job fetch with its unit of work."),
          Map.entry("bothy_event_consumer_lag", "Events after the cursor of a worker consumer."),
          Map.entry(
              "bothy_event_consumer_pending_age_seconds",
              "Age of the oldest event after the cursor of a worker consumer, 0 at the head."),
          Map.entry(
              "bothy_event_consumer_registered",
              "1 for each worker consumer registered in this process."),
          Map.entry(
              "bothy_api_request_seconds",
              "HTTP API requests, from the first request filter to the response headers."),
          Map.entry("bothy_api_streams_open", "Event streams open in this process."),
          Map.entry(
              "bothy_bus_relay_lag",
              "Committed events the EVENTS stream has not acknowledged: head minus the relay"
                  + " cursor."),
          Map.entry(
              "bothy_bus_relay_up",
              "1 while this process's relay is active or standing by with NATS connected."),
          Map.entry("bothy_bus_relay_active", "1 in the process that holds the relay's lease."),
          Map.entry("bothy_bus_nats_connected", "1 while the relay's NATS connection is up."),
          Map.entry(
              "bothy_bus_stream_behind_log",
              "1 while the relay is halted because the stream and the log disagree."),
          Map.entry(
              "bothy_bus_relay_published_events",
              "Events the EVENTS stream acknowledged in order, from this process's relay."),
          Map.entry(
              "bothy_bus_relay_duplicates",
              "Of the published events, those the stream already had (a republish)."),
          Map.entry(
              "bothy_bus_relay_publish_seconds",
              "Per relay window: from the first publish to the last ack (histogram)."),
          Map.entry("bothy_api_streamed_events", "Events written to event streams."),
          Map.entry(
              "bothy_webhooks_attempts", "Webhook delivery attempts by what the answer meant."),
          Map.entry(
              "bothy_webhooks_receiver_busy",
              "Webhook deliveries snoozed without an attempt: every connection they may use"
                  + " (per receiver or in all) stayed busy for webhooks.connectionWait."),
          Map.entry(
              "bothy_webhooks_delivery_latency_seconds",
              "From an event's append to the 2xx answer of its webhook delivery."),
          Map.entry(
              "bothy_webhooks_subscriptions",
              "Webhook subscriptions by state, the disabled ones by reason."),
          Map.entry(
              "bothy_bus_dispatch",
              "Deliveries of an event to a bus handler by outcome: ack, duplicate, parked, paused,"
                  + " nak, term."),
          Map.entry(
              "bothy_bus_handler_seconds",
              "A bus handler's unit of work, its delivery row included."),
          Map.entry("bothy_bus_dead_letters", "Dead letters written, by bus handler."),
          Map.entry(
              "bothy_bus_consumer_pending",
              "Messages of a NATS durable not yet delivered (num_pending), last sample."),
          Map.entry(
              "bothy_bus_consumer_ack_pending",
              "Messages of a NATS durable delivered and not answered, nak delays included."),
          Map.entry(
              "bothy_bus_consumer_redelivered",
              "Messages of a NATS durable delivered more than once and not yet answered."),
          Map.entry(
              "bothy_pool_active_connections", "HikariCP: connections in use by the process."),
          Map.entry("bothy_pool_idle_connections", "HikariCP: idle connections in the pool."),
          Map.entry("bothy_pool_total_connections", "HikariCP: connections in the pool."),
          Map.entry(
              "bothy_pool_pending_connections", "HikariCP: threads waiting for a connection."),
          Map.entry("bothy_pool_max_connections", "HikariCP: the pool's maximum size."),
          Map.entry("bothy_pool_min_connections", "HikariCP: the pool's minimum idle size."),
          Map.entry(
              "bothy_pool_connection_timeouts",
              "HikariCP: requests for a connection that timed out."),
          Map.entry("bothy_pool_wait_seconds", "HikariCP: how long a connection request waited."),
          Map.entry("bothy_pool_usage_seconds", "HikariCP: how long a connection was borrowed."),
          Map.entry(
              "bothy_pool_connection_creation_seconds",
              "HikariCP: how long opening a connection took."));

  private static final Pattern NOT_NAME = Pattern.compile("[^a-zA-Z0-9_]");
  private static final Pattern LOWER_UPPER = Pattern.compile("([a-z0-9])([A-Z])");
  private static final Pattern UPPER_RUN = Pattern.compile("([A-Z]+)([A-Z][a-z])");
  private static final List<String> RESERVED =
      List.of("_total", "_created", "_bucket", "_info", "_count", "_sum");

  private PrometheusFamilies() {}

  /**
   * The family of a Dropwizard metric.
   *
   * @param dropwizard its Dropwizard name without labels
   * @param metric one metric of the family, which decides the type
   * @return the family
   */
  static Family of(String dropwizard, Metric metric) {
    String name = null;
    double scale = 1;
    for (Rename rename : RENAMES) {
      Matcher m = rename.dropwizard().matcher(dropwizard);
      if (m.matches()) {
        name = snakeCase(m.replaceAll(rename.prometheus()));
        scale = rename.scale();
        break;
      }
    }
    if (name == null) {
      name = snakeCase(dropwizard);
    }
    if (metric instanceof Timer && !name.endsWith("_seconds")) {
      name = name + "_seconds";
    }
    for (String reserved : RESERVED) {
      if (name.endsWith(reserved)) {
        // The client library and promtool refuse these endings, which the text format gives
        // meanings (a counter's _total, a summary's _count and _sum).
        name = name + "_value";
      }
    }
    Type type = type(dropwizard, metric);
    String help = HELP.getOrDefault(name, "Dropwizard metric " + dropwizard + ".");
    return new Family(name, type, help, scale);
  }

  /**
   * Lower snake_case with only {@code [a-z0-9_]}, no doubled or trailing underscore.
   *
   * @param dropwizard a Dropwizard name, or a Prometheus name with its parts still in camelCase
   * @return the name in snake_case
   */
  static String snakeCase(String dropwizard) {
    String s = NOT_NAME.matcher(dropwizard).replaceAll("_");
    s = UPPER_RUN.matcher(s).replaceAll("$1_$2");
    s = LOWER_UPPER.matcher(s).replaceAll("$1_$2");
    s = s.toLowerCase(Locale.ROOT).replaceAll("_+", "_").replaceAll("^_|_$", "");
    return Character.isDigit(s.charAt(0)) ? "_" + s : s;
  }

  private static Type type(String dropwizard, Metric metric) {
    if (metric instanceof BucketTimer) {
      return Type.HISTOGRAM;
    }
    if (metric instanceof Timer || metric instanceof Histogram) {
      return Type.SUMMARY;
    }
    if (metric instanceof Meter) {
      return Type.COUNTER;
    }
    if (metric instanceof Counter) {
      // Bothy's counters only count up; other libraries' go up and down (active requests).
      return dropwizard.startsWith("bothy.") ? Type.COUNTER : Type.GAUGE;
    }
    return Type.GAUGE;
  }
}
