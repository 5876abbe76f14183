package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Consumers;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The gauges of the worker consumers, registered in every role so a stopped or missing worker still
 * shows a growing lag:
 *
 * <ul>
 *   <li>{@code bothy_event_consumer_lag{bothy_consumer_name}}: head minus the cursor, in events,
 *       floored at zero;
 *   <li>{@code bothy_event_consumer_pending_age_seconds{bothy_consumer_name}}: now minus when the
 *       oldest unprocessed event occurred, floored at zero, zero at the head (the alert
 *       BothyEventConsumerLag compares it with {@code consumer.pendingAlertAfter});
 *   <li>{@code bothy_event_consumer_registered{bothy_consumer_name}}: 1 for each consumer whose
 *       rounds this process runs ({@code worker}, {@code all}), read from memory, never absent for
 *       such a one. An {@code api} process knows the consumers for their lag but runs no round, and
 *       a cursor row only a worker creates would be missing there on a fresh database. The alert
 *       BothyEventConsumerLagMissing compares it with the lag series: a registered consumer without
 *       a lag series has no cursor row (deleted by hand) and stands still.
 * </ul>
 *
 * <p>Only registered consumers have gauges, so {@code /metrics} shows no gauge without a value for
 * a consumer this build does not run. One read of the states serves the lag gauges for a second; it
 * waits at most {@code database.metricsReadTimeout} ({@link ScrapeReads}). On an error or a
 * timeout, or for a consumer without a cursor row, the series is absent (never blocking, never a
 * made-up zero).
 */
final class ConsumerMetrics {
  static final String LAG = "bothy.event.consumer.lag";
  static final String PENDING_AGE = "bothy.event.consumer.pending_age_seconds";
  static final String REGISTERED = "bothy.event.consumer.registered";
  static final String LABEL = TelemetryNames.CONSUMER_NAME.replace('.', '_');

  private ConsumerMetrics() {}

  /**
   * Registers the gauges of every registered consumer.
   *
   * @param registry the process's metrics
   * @param consumers the consumers registered in this process
   * @param clock the process's clock, for the pending age
   * @param reads the bounded reads of a scrape
   * @param runsRounds whether this process runs the consumers' rounds ({@code worker}, {@code
   *     all}): only then is the registered series exported, since the alert that compares it with
   *     the lag is about a consumer that should run here and cannot
   */
  static void register(
      MetricRegistry registry,
      Consumers consumers,
      Clock clock,
      ScrapeReads reads,
      boolean runsRounds) {
    CachedGauge<Map<ConsumerName, ConsumerState>> states =
        new CachedGauge<>(1, TimeUnit.SECONDS) {
          @Override
          protected Map<ConsumerName, ConsumerState> loadValue() {
            List<ConsumerState> read = reads.read(consumers::states);
            if (read == null) {
              return null;
            }
            Map<ConsumerName, ConsumerState> byName = new HashMap<>();
            for (ConsumerState s : read) {
              byName.put(s.name(), s);
            }
            return byName;
          }
        };
    for (ConsumerName name : consumers.registered()) {
      if (runsRounds) {
        registry.register(
            LabelledDropwizardExports.name(REGISTERED, LABEL, name.value()),
            (Gauge<Integer>) () -> 1);
      }
      registry.register(
          LabelledDropwizardExports.name(LAG, LABEL, name.value()),
          (Gauge<Long>)
              () -> {
                ConsumerState s = state(states, name);
                return s == null ? null : s.lag();
              });
      registry.register(
          LabelledDropwizardExports.name(PENDING_AGE, LABEL, name.value()),
          (Gauge<Double>)
              () -> {
                ConsumerState s = state(states, name);
                if (s == null) {
                  return null;
                }
                return s.oldestPendingAt()
                    .map(at -> Math.max(0, Duration.between(at, clock.now()).toMillis()) / 1000.0)
                    .orElse(0.0);
              });
    }
  }

  private static ConsumerState state(
      CachedGauge<Map<ConsumerName, ConsumerState>> states, ConsumerName name) {
    Map<ConsumerName, ConsumerState> now = states.getValue();
    return now == null ? null : now.get(name);
  }
}
