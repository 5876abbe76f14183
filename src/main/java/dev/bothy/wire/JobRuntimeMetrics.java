package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.QueueCount;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The job runtime's metrics in the Dropwizard registry, labelled through {@link
 * LabelledDropwizardExports}:
 *
 * <ul>
 *   <li>{@code bothy_jobs{bothy_queue, bothy_job_state}}: jobs by queue and state (gauge, one query
 *       per second at most, absent while the database does not answer);
 *   <li>{@code bothy_jobs_work_seconds{bothy_job_kind}}: how long work functions ran (summary);
 *   <li>{@code bothy_jobs_failures_total{bothy_job_kind}} and {@code
 *       bothy_jobs_discards_total{bothy_job_kind}}: failed attempts and dead letters;
 *   <li>{@code bothy_jobs_fetch_seconds{bothy_queue}}: the fetch round trip (summary).
 * </ul>
 */
final class JobRuntimeMetrics implements JobMetrics {
  static final String JOBS = "bothy.jobs";
  static final String WORK = "bothy.jobs.work_seconds";
  static final String FAILURES = "bothy.jobs.failures";
  static final String DISCARDS = "bothy.jobs.discards";
  static final String FETCH = "bothy.jobs.fetch_seconds";
  static final String KIND = "bothy_job_kind";
  static final String QUEUE = "bothy_queue";
  static final String STATE = "bothy_job_state";

  private final MetricRegistry registry;

  JobRuntimeMetrics(MetricRegistry registry) {
    this.registry = registry;
  }

  /**
   * Registers the gauge of jobs by queue and state: every state of every configured queue, zero
   * where no job is, from one shared count query.
   *
   * @param registry the Dropwizard registry
   * @param admin counts the jobs
   * @param queues the queues of {@code jobs.queues}
   * @param reads bounds the count query by {@code database.metricsReadTimeout}
   */
  static void registerGauges(
      MetricRegistry registry, JobAdmin admin, Set<String> queues, ScrapeReads reads) {
    CachedGauge<Map<String, Long>> counts =
        new CachedGauge<>(1, TimeUnit.SECONDS) {
          @Override
          protected Map<String, Long> loadValue() {
            List<QueueCount> read = reads.read(admin::counts);
            if (read == null) {
              // No database, no value: a missing series says unknown, a zero would lie.
              return null;
            }
            Map<String, Long> byKey = new HashMap<>();
            for (QueueCount c : read) {
              byKey.put(c.queue() + "\n" + c.state().code(), c.count());
            }
            return byKey;
          }
        };
    for (String queue : queues) {
      for (JobState state : JobState.values()) {
        String key = queue + "\n" + state.code();
        registry.register(
            LabelledDropwizardExports.name(JOBS, QUEUE, queue, STATE, state.code()),
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
    registry
        .timer(LabelledDropwizardExports.name(WORK, KIND, kind))
        .update(nanos, TimeUnit.NANOSECONDS);
    if (outcome == Outcome.FAILED || outcome == Outcome.DISCARDED) {
      registry.counter(LabelledDropwizardExports.name(FAILURES, KIND, kind)).inc();
    }
    if (outcome == Outcome.DISCARDED) {
      registry.counter(LabelledDropwizardExports.name(DISCARDS, KIND, kind)).inc();
    }
  }

  @Override
  public void fetched(String queue, int jobs, long nanos) {
    registry
        .timer(LabelledDropwizardExports.name(FETCH, QUEUE, queue))
        .update(nanos, TimeUnit.NANOSECONDS);
  }
}
