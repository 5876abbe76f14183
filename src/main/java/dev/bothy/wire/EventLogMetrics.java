package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import dev.bothy.console.ProcessReadings;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.app.AppendMetrics;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The metrics of the event log, in the Dropwizard registry (and so on {@code /prometheus}):
 *
 * <ul>
 *   <li>{@code bothy.event_log.head_seq} and {@code bothy.event_log.min_retained_seq}: gauges read
 *       from the log, cached for a second so scrapes do not load the database, each read bounded by
 *       {@code database.metricsReadTimeout};
 *   <li>{@code bothy.event_log.appended_events}: committed events;
 *   <li>{@code bothy.event_log.append_batch_size}: events per committed unit;
 *   <li>{@code bothy.event_log.seq_lock_held}: how long each unit held the {@code event_seq} row
 *       lock, the serialization window of the whole system.
 * </ul>
 */
final class EventLogMetrics implements AppendMetrics {
  private final MetricRegistry registry;
  private final Counter appended;
  private final Histogram batchSize;
  private final Timer lockHeld;

  EventLogMetrics(MetricRegistry registry) {
    this.registry = registry;
    this.appended = registry.counter("bothy.event_log.appended_events");
    this.batchSize = registry.histogram("bothy.event_log.append_batch_size");
    this.lockHeld = registry.timer("bothy.event_log.seq_lock_held");
  }

  /**
   * Registers the head and minimum gauges; a failed or timed-out read reports nothing for that
   * scrape.
   *
   * @param log the event log
   * @param reads bounds each read by {@code database.metricsReadTimeout}
   */
  void registerGauges(EventLog log, ScrapeReads reads) {
    registry.register(
        "bothy.event_log.head_seq",
        new CachedGauge<Long>(1, TimeUnit.SECONDS) {
          @Override
          protected Long loadValue() {
            return reads.read(log::head);
          }
        });
    registry.register(
        "bothy.event_log.min_retained_seq",
        new CachedGauge<Long>(1, TimeUnit.SECONDS) {
          @Override
          protected Long loadValue() {
            return reads.read(log::minRetained);
          }
        });
  }

  /**
   * Reads this process's {@code event_seq} lock hold times for the console, from the same timer as
   * the metric (its reservoir keeps the recent minutes).
   *
   * @return the reading, or empty before this process's first appending unit
   */
  Optional<ProcessReadings.SeqLockHeld> seqLockHeld() {
    long units = lockHeld.getCount();
    if (units == 0) {
      return Optional.empty();
    }
    Snapshot s = lockHeld.getSnapshot();
    return Optional.of(
        new ProcessReadings.SeqLockHeld(
            units, millis(s.getMedian()), millis(s.get99thPercentile()), millis(s.getMax())));
  }

  private static double millis(double nanos) {
    return nanos / 1_000_000.0;
  }

  @Override
  public void committed(int events, long lockHeldNanos) {
    appended.inc(events);
    batchSize.update(events);
    lockHeld.update(lockHeldNanos, TimeUnit.NANOSECONDS);
  }
}
