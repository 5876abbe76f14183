package dev.bothy.wire;

import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.QueueCount;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job runtime's metrics, registered directly as Prometheus metrics with labels (the Dropwizard
 * bridge cannot export several Dropwizard metrics under one Prometheus name):
 *
 * <ul>
 *   <li>{@code bothy_jobs{bothy_queue, bothy_job_state}}: jobs by queue and state (gauge, one query
 *       per scrape, absent while the database does not answer);
 *   <li>{@code bothy_jobs_work_seconds{bothy_job_kind}}: how long work functions ran (histogram);
 *   <li>{@code bothy_jobs_failures_total{bothy_job_kind}} and {@code
 *       bothy_jobs_discards_total{bothy_job_kind}}: failed attempts and dead letters;
 *   <li>{@code bothy_jobs_fetch_seconds{bothy_queue}}: the fetch round trip (histogram).
 * </ul>
 */
final class JobRuntimeMetrics implements JobMetrics {
  private final Histogram work;
  private final Counter failures;
  private final Counter discards;
  private final Histogram fetch;

  JobRuntimeMetrics(PrometheusRegistry registry) {
    this.work =
        Histogram.builder()
            .name("bothy_jobs_work_seconds")
            .help("How long job work functions ran, by kind")
            .unit(Unit.SECONDS)
            .labelNames("bothy_job_kind")
            .classicOnly()
            .register(registry);
    this.failures =
        Counter.builder()
            .name("bothy_jobs_failures_total")
            .help("Failed job attempts (exceptions, errors, timeouts), by kind")
            .labelNames("bothy_job_kind")
            .register(registry);
    this.discards =
        Counter.builder()
            .name("bothy_jobs_discards_total")
            .help("Jobs discarded after their last attempt (dead letters), by kind")
            .labelNames("bothy_job_kind")
            .register(registry);
    this.fetch =
        Histogram.builder()
            .name("bothy_jobs_fetch_seconds")
            .help("Round trip of one job fetch statement, unit of work included, by queue")
            .unit(Unit.SECONDS)
            .labelNames("bothy_queue")
            .classicOnly()
            .register(registry);
  }

  /**
   * Registers the gauge of jobs by queue and state: every state of every configured queue, zero
   * where no job is.
   *
   * @param registry the registry of the admin port's {@code /prometheus}
   * @param admin counts the jobs
   * @param queues the queues of {@code jobs.queues}
   */
  static void registerGauge(PrometheusRegistry registry, JobAdmin admin, Set<String> queues) {
    GaugeWithCallback.builder()
        .name("bothy_jobs")
        .help("Jobs by queue and state")
        .labelNames("bothy_queue", "bothy_job_state")
        .callback(
            callback -> {
              List<QueueCount> counts;
              try {
                counts = admin.counts();
              } catch (RuntimeException e) {
                // No database, no gauge: a missing series says unknown, a zero would lie.
                return;
              }
              Map<String, Long> byKey = new HashMap<>();
              for (QueueCount c : counts) {
                byKey.put(c.queue() + "\n" + c.state().code(), c.count());
              }
              for (String queue : queues) {
                for (JobState state : JobState.values()) {
                  callback.call(
                      byKey.getOrDefault(queue + "\n" + state.code(), 0L), queue, state.code());
                }
              }
            })
        .register(registry);
  }

  @Override
  public void worked(String kind, Outcome outcome, long nanos) {
    work.labelValues(kind).observe(nanos / 1e9);
    if (outcome == Outcome.FAILED || outcome == Outcome.DISCARDED) {
      failures.labelValues(kind).inc();
    }
    if (outcome == Outcome.DISCARDED) {
      discards.labelValues(kind).inc();
    }
  }

  @Override
  public void fetched(String queue, int jobs, long nanos) {
    fetch.labelValues(queue).observe(nanos / 1e9);
  }
}
