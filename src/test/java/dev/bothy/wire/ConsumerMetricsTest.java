package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.kernel.SettableClock;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Consumers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ConsumerMetricsTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final AtomicReference<Object> states = new AtomicReference<>(List.of());
  private final AtomicReference<List<ConsumerName>> registered =
      new AtomicReference<>(List.of(ConsumerName.WEBHOOKS, ConsumerName.PUSH));
  private final Consumers consumers =
      new Consumers() {
        @Override
        public void register(ConsumerName name, ConsumerHandler handler) {}

        @Override
        public List<ConsumerName> registered() {
          return registered.get();
        }

        @SuppressWarnings("unchecked")
        @Override
        public List<ConsumerState> states() {
          if (states.get() instanceof RuntimeException e) {
            throw e;
          }
          return (List<ConsumerState>) states.get();
        }
      };

  private Object gauge(MetricRegistry registry, String base, ConsumerName name) {
    return ((Gauge<?>)
            registry
                .getMetrics()
                .get(LabelledDropwizardExports.name(base, ConsumerMetrics.LABEL, name.value())))
        .getValue();
  }

  @Test
  void lag_and_pending_age_per_consumer_floored_at_zero_and_absent_without_a_row() {
    SettableClock clock = new SettableClock(NOW);
    states.set(
        List.of(
            new ConsumerState(
                ConsumerName.WEBHOOKS, 90, 100, Optional.of(NOW.minusSeconds(42)), NOW),
            new ConsumerState(ConsumerName.PUSH, 120, 100, Optional.empty(), NOW)));
    MetricRegistry registry = new MetricRegistry();
    ConsumerMetrics.register(registry, consumers, clock);

    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.WEBHOOKS)).isEqualTo(10L);
    assertThat(gauge(registry, ConsumerMetrics.PENDING_AGE, ConsumerName.WEBHOOKS)).isEqualTo(42.0);
    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.PUSH))
        .as("a cursor ahead of the head is floored at zero")
        .isEqualTo(0L);
    assertThat(gauge(registry, ConsumerMetrics.PENDING_AGE, ConsumerName.PUSH)).isEqualTo(0.0);
    assertThat(ConsumerMetrics.LABEL).isEqualTo("bothy_consumer_name");
  }

  @Test
  void an_error_or_a_missing_row_leaves_the_series_out() {
    states.set(new IllegalStateException("the database is down"));
    MetricRegistry registry = new MetricRegistry();
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW));
    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.WEBHOOKS)).isNull();
    assertThat(gauge(registry, ConsumerMetrics.PENDING_AGE, ConsumerName.PUSH)).isNull();

    MetricRegistry other = new MetricRegistry();
    states.set(List.of());
    ConsumerMetrics.register(other, consumers, new SettableClock(NOW.plus(Duration.ofDays(1))));
    assertThat(gauge(other, ConsumerMetrics.LAG, ConsumerName.WEBHOOKS)).isNull();
  }

  @Test
  void a_consumer_that_is_not_registered_has_no_gauge_even_with_a_cursor_row() {
    registered.set(List.of(ConsumerName.PUSH));
    states.set(
        List.of(
            new ConsumerState(ConsumerName.WEBHOOKS, 90, 100, Optional.empty(), NOW),
            new ConsumerState(ConsumerName.PUSH, 95, 100, Optional.empty(), NOW)));
    MetricRegistry registry = new MetricRegistry();
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW));

    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.PUSH)).isEqualTo(5L);
    assertThat(registry.getMetrics().keySet())
        .noneMatch(name -> name.contains(ConsumerName.WEBHOOKS.value()));
  }
}
