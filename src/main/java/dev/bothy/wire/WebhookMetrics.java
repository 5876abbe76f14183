package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.webhooks.app.DeliveryMetrics;
import dev.bothy.webhooks.domain.DeliveryVerdict;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The delivery metrics of outgoing webhooks in the Dropwizard registry, labelled through {@link
 * LabelledDropwizardExports}:
 *
 * <ul>
 *   <li>{@code bothy_webhooks_attempts_total{bothy_webhook_outcome}}: attempts by outcome ({@code
 *       delivered}, {@code gone}, {@code retry_after}, {@code failed});
 *   <li>{@code bothy_webhooks_receiver_busy_total}: deliveries snoozed without an attempt, as every
 *       connection to their receiver stayed busy for {@code webhooks.connectionWait} (D-WF-9);
 *   <li>{@code bothy_webhooks_delivery_latency_seconds}: from an event's append to its delivery's
 *       2xx answer (summary), what the alert BothyWebhookDeliveryLatency watches;
 *   <li>{@code bothy_webhooks_subscriptions{bothy_webhook_state}}: subscriptions by state ({@code
 *       active}, or the disabled reason {@code gap}, {@code failing}, {@code gone}, {@code
 *       manual}), every state present, zero where none is; one count query per second at most,
 *       bounded by {@code database.metricsReadTimeout}, absent while the database does not answer.
 *       The alert BothyWebhookSubscriptionsFailing watches {@code failing}.
 * </ul>
 */
final class WebhookMetrics implements DeliveryMetrics {
  static final String ATTEMPTS = "bothy.webhooks.attempts";
  static final String RECEIVER_BUSY = "bothy.webhooks.receiver_busy";
  static final String LATENCY = "bothy.webhooks.delivery_latency_seconds";
  static final String OUTCOME = "bothy_webhook_outcome";
  static final String SUBSCRIPTIONS = "bothy.webhooks.subscriptions";
  static final String STATE = "bothy_webhook_state";
  static final List<String> STATES = List.of("active", "gap", "failing", "gone", "manual");

  private final MetricRegistry registry;

  WebhookMetrics(MetricRegistry registry) {
    this.registry = registry;
    // Shown at zero from the start, so a rate over it needs no first busy receiver.
    registry.counter(RECEIVER_BUSY);
  }

  /**
   * Registers the gauge of subscriptions by state.
   *
   * @param registry the Dropwizard registry
   * @param counts reads the counts ({@code WebhooksModule.stateCounts})
   * @param reads bounds the read by {@code database.metricsReadTimeout}
   */
  static void registerGauges(
      MetricRegistry registry, Supplier<Map<String, Long>> counts, ScrapeReads reads) {
    CachedGauge<Map<String, Long>> cached =
        new CachedGauge<>(1, TimeUnit.SECONDS) {
          @Override
          protected Map<String, Long> loadValue() {
            // No database, no value: a missing series says unknown, a zero would lie.
            return reads.read(counts::get);
          }
        };
    for (String state : STATES) {
      registry.register(
          LabelledDropwizardExports.name(SUBSCRIPTIONS, STATE, state),
          (Gauge<Long>)
              () -> {
                Map<String, Long> now = cached.getValue();
                return now == null ? null : now.getOrDefault(state, 0L);
              });
    }
  }

  @Override
  public void attempt(DeliveryVerdict verdict) {
    String outcome;
    if (verdict instanceof DeliveryVerdict.Delivered) {
      outcome = "delivered";
    } else if (verdict instanceof DeliveryVerdict.Gone) {
      outcome = "gone";
    } else if (verdict instanceof DeliveryVerdict.RetryAfter) {
      outcome = "retry_after";
    } else {
      outcome = "failed";
    }
    registry.counter(LabelledDropwizardExports.name(ATTEMPTS, OUTCOME, outcome)).inc();
  }

  @Override
  public void receiverBusy() {
    registry.counter(RECEIVER_BUSY).inc();
  }

  @Override
  public void deliveredAfter(Duration latency) {
    registry.timer(LATENCY).update(Math.max(0, latency.toNanos()), TimeUnit.NANOSECONDS);
  }
}
