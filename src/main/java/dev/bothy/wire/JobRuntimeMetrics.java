package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.QueueCount;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The job runtime's metrics as Dropwizard metrics, with the Prometheus label mappings that turn the
 * kind, queue and state name segments into the labels {@code bothy_job_kind}, {@code bothy_queue}
 * and {@code bothy_job_state}.
 *
 * <ul>
 *   <li>{@code bothy_jobs{bothy_queue, bothy_job_state}}: jobs by queue and state (gauge, one query
 *       per scrape at most every second, absent while the database does not answer);
 *   <li>{@code bothy_jobs_work_seconds{bothy_job_kind}}: how long work functions ran (summary);
 *   <li>{@code bothy_jobs_failures_total{bothy_job_kind}} and {@code
 *       bothy_jobs_discards_total{bothy_job_kind}}: failed attempts and dead letters;
 *   <li>{@code bothy_jobs_fetch_seconds{bothy_queue}}: the fetch round trip (summary).
 * </ul>
 */
final class JobRuntimeMetrics implements JobMetrics {
  static final String COUNT = "bothy.jobs.count";
  static final String WORK = "bothy.jobs.work_seconds";
  static final String FAILURES = "bothy.jobs.failures";
  static final String DISCARDS = "bothy.jobs.discards";
  static final String FETCH = "bothy.jobs.fetch_seconds";

  private final MetricRegistry registry;

  JobRuntimeMetrics(MetricRegistry registry) {
    this.registry = registry;
  }

  /** The label mappings of these metrics, for the Prometheus exporter. */
  static List<MapperConfig> labelMappings() {
    return List.of(
        new MapperConfig(
            COUNT + ".*.*", "bothy_jobs", Map.of("bothy_queue", "${0}", "bothy_job_state", "${1}")),
        new MapperConfig(WORK + ".*.*", "bothy_jobs_work_seconds", kindLabel()),
        new MapperConfig(FAILURES + ".*.*", "bothy_jobs_failures_total", kindLabel()),
        new MapperConfig(DISCARDS + ".*.*", "bothy_jobs_discards_total", kindLabel()),
        new MapperConfig(FETCH + ".*", "bothy_jobs_fetch_seconds", Map.of("bothy_queue", "${0}")));
  }

  private static Map<String, String> kindLabel() {
    return Map.of("bothy_job_kind", "${0}.${1}");
  }

  /**
   * Registers the gauge of jobs by queue and state for the configured queues.
   *
   * @param admin counts the jobs
   * @param queues the queues of {@code jobs.queues}
   */
  void registerGauges(JobAdmin admin, Set<String> queues) {
    CachedGauge<Map<String, Long>> counts =
        new CachedGauge<>(1, TimeUnit.SECONDS) {
          @Override
          protected Map<String, Long> loadValue() {
            try {
              Map<String, Long> byKey = new HashMap<>();
              for (QueueCount c : admin.counts()) {
                byKey.put(c.queue() + "." + c.state().code(), c.count());
              }
              return byKey;
            } catch (RuntimeException e) {
              return null;
            }
          }
        };
    for (String queue : queues) {
      for (JobState state : JobState.values()) {
        String key = queue + "." + state.code();
        registry.register(
            COUNT + "." + key,
            (Gauge<Long>)
                () -> {
                  Map<String, Long> now = counts.getValue();
                  return now == null ? null : now.getOrDefault(key, 0L);
                });
      }
    }
  }

  @Override
  public void worked(String kind, Outcome outcome, long nanos) {
    registry.timer(WORK + "." + kind).update(nanos, TimeUnit.NANOSECONDS);
    if (outcome == Outcome.FAILED || outcome == Outcome.DISCARDED) {
      registry.counter(FAILURES + "." + kind).inc();
    }
    if (outcome == Outcome.DISCARDED) {
      registry.counter(DISCARDS + "." + kind).inc();
    }
  }

  @Override
  public void fetched(String queue, int jobs, long nanos) {
    registry
        .timer(FETCH + "." + queue.toLowerCase(Locale.ROOT))
        .update(nanos, TimeUnit.NANOSECONDS);
  }
}
