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
  private final ScrapeReads reads = new ScrapeReads(Duration.ofSeconds(5));
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
    ConsumerMetrics.register(registry, consumers, clock, reads, true);

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
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW), reads, true);
    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.WEBHOOKS)).isNull();
    assertThat(gauge(registry, ConsumerMetrics.PENDING_AGE, ConsumerName.PUSH)).isNull();

    MetricRegistry other = new MetricRegistry();
    states.set(List.of());
    ConsumerMetrics.register(
        other, consumers, new SettableClock(NOW.plus(Duration.ofDays(1))), reads, true);
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
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW), reads, true);

    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.PUSH)).isEqualTo(5L);
    assertThat(registry.getMetrics().keySet())
        .noneMatch(name -> name.contains(ConsumerName.WEBHOOKS.value()));
  }

  @Test
  void a_process_that_runs_no_rounds_exports_the_lag_but_no_registered_series() {
    registered.set(List.of(ConsumerName.WEBHOOKS));
    MetricRegistry registry = new MetricRegistry();
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW), reads, false);

    assertThat(registry.getMetrics().keySet())
        .as("an api process: the alert on a registered consumer without lag is the worker's")
        .noneMatch(name -> name.startsWith(ConsumerMetrics.REGISTERED))
        .anyMatch(name -> name.startsWith(ConsumerMetrics.LAG))
        .anyMatch(name -> name.startsWith(ConsumerMetrics.PENDING_AGE));
  }

  @Test
  void the_registered_series_is_one_for_each_registered_consumer_and_needs_no_database() {
    states.set(new IllegalStateException("the database is down"));
    registered.set(List.of(ConsumerName.WEBHOOKS));
    MetricRegistry registry = new MetricRegistry();
    ConsumerMetrics.register(registry, consumers, new SettableClock(NOW), reads, true);

    assertThat(gauge(registry, ConsumerMetrics.REGISTERED, ConsumerName.WEBHOOKS)).isEqualTo(1);
    assertThat(registry.getMetrics().keySet())
        .as("not registered: no series")
        .noneMatch(name -> name.contains(ConsumerName.PUSH.value()));
    assertThat(gauge(registry, ConsumerMetrics.LAG, ConsumerName.WEBHOOKS)).isNull();
  }

  @Test
  void a_read_past_the_bound_is_absent_and_the_next_one_does_not_queue_behind_it()
      throws Exception {
    ScrapeReads bounded = new ScrapeReads(Duration.ofMillis(100));
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    long began = System.nanoTime();
    Object first =
        bounded.read(
            () -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return 1L;
            });
    Object second = bounded.read(() -> 2L);
    Duration took = Duration.ofNanos(System.nanoTime() - began);
    release.countDown();

    assertThat(first).isNull();
    assertThat(second).as("the first read still runs").isNull();
    assertThat(took).isLessThan(Duration.ofSeconds(2));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Object after = null;
    while (after == null && System.nanoTime() < deadline) {
      after = bounded.read(() -> 3L);
    }
    assertThat(after).as("reads resume once the slow one ended").isEqualTo(3L);
    java.util.function.Supplier<Long> failing =
        () -> {
          throw new IllegalStateException("down");
        };
    Object failed = bounded.read(failing);
    assertThat(failed).isNull();
  }
}
