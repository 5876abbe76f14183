package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.codahale.metrics.MetricRegistry;
import dev.bothy.wire.config.BusRelayConfig;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The relay's publish time is a Prometheus histogram with fixed buckets (issue 18), and stays a
 * timer in the JSON of {@code /metrics}.
 */
class BusRelayMetricsTest {
  private static final String FAMILY = "bothy_bus_relay_publish_seconds";

  @Test
  void a_windows_publish_time_lands_in_the_cumulative_buckets_with_its_sum_and_count() {
    MetricRegistry registry = new MetricRegistry();
    BusRelayMetrics metrics = new BusRelayMetrics(registry);

    metrics.window(Duration.ofMillis(3));
    // On a bound: counted in that bucket, since le means "less than or equal".
    metrics.window(Duration.ofMillis(5));
    metrics.window(Duration.ofMillis(40));
    // Above the last bound: only in +Inf.
    metrics.window(Duration.ofSeconds(7));

    HistogramSnapshot.HistogramDataPointSnapshot point = histogram(registry).getDataPoints().get(0);
    ClassicHistogramBuckets buckets = point.getClassicBuckets();
    List<Double> bounds = new ArrayList<>();
    long[] cumulative = new long[buckets.size()];
    long running = 0;
    for (int i = 0; i < buckets.size(); i++) {
      bounds.add(buckets.getUpperBound(i));
      running += buckets.getCount(i);
      cumulative[i] = running;
    }
    List<Double> expected = new ArrayList<>();
    for (double b : BusRelayMetrics.PUBLISH_BUCKETS) {
      expected.add(b);
    }
    expected.add(Double.POSITIVE_INFINITY);
    assertThat(bounds).isEqualTo(expected);
    assertThat(cumulative[bounds.indexOf(0.0025)]).isZero();
    assertThat(cumulative[bounds.indexOf(0.005)]).isEqualTo(2);
    assertThat(cumulative[bounds.indexOf(0.025)]).isEqualTo(2);
    assertThat(cumulative[bounds.indexOf(0.05)]).isEqualTo(3);
    assertThat(cumulative[bounds.indexOf(5.0)]).isEqualTo(3);
    assertThat(cumulative[bounds.size() - 1]).isEqualTo(4);
    assertThat(point.getCount()).isEqualTo(4);
    assertThat(point.getSum()).isCloseTo(7.048, within(1e-9));
  }

  @Test
  void the_family_has_its_help_text_and_no_series_before_the_first_window() {
    MetricRegistry registry = new MetricRegistry();
    new BusRelayMetrics(registry);

    HistogramSnapshot family = histogram(registry);

    assertThat(family.getMetadata().getHelp())
        .isEqualTo(PrometheusFamilies.HELP.get(FAMILY))
        .isNotBlank();
    assertThat(family.getDataPoints()).hasSize(1);
    assertThat(family.getDataPoints().get(0).getCount()).isZero();
  }

  @Test
  void the_json_of_metrics_still_shows_the_publish_time_as_a_timer() {
    MetricRegistry registry = new MetricRegistry();
    BusRelayMetrics metrics = new BusRelayMetrics(registry);

    metrics.window(Duration.ofMillis(12));

    assertThat(registry.getTimers()).containsKey(BusRelayMetrics.PUBLISH);
    assertThat(registry.getTimers().get(BusRelayMetrics.PUBLISH).getCount()).isEqualTo(1);
    assertThat(registry.getTimers().get(BusRelayMetrics.PUBLISH).getSnapshot().getMax())
        .isEqualTo(Duration.ofMillis(12).toNanos());
  }

  @Test
  void the_buckets_rise_from_a_millisecond_to_the_default_ack_timeout() {
    double[] b = BusRelayMetrics.PUBLISH_BUCKETS;
    for (int i = 1; i < b.length; i++) {
      assertThat(b[i]).isGreaterThan(b[i - 1]);
    }
    assertThat(b[0]).isEqualTo(0.001);
    assertThat(b[b.length - 1])
        .as("a window that waits longer than bus.relay.publishAckTimeout is not recorded")
        .isEqualTo(BusRelayConfig.DEFAULT_PUBLISH_ACK_TIMEOUT.toSeconds());
  }

  private static HistogramSnapshot histogram(MetricRegistry registry) {
    for (MetricSnapshot s : new LabelledDropwizardExports(registry).collect()) {
      if (s.getMetadata().getName().equals(FAMILY)) {
        assertThat(s).isInstanceOf(HistogramSnapshot.class);
        return (HistogramSnapshot) s;
      }
    }
    throw new AssertionError("no family " + FAMILY);
  }
}
