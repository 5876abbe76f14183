package dev.bothy.wire;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Exports the labelled Dropwizard metrics as Prometheus metric families: every Dropwizard metric
 * named {@code base{label=value,label=value}} joins the family {@code base} (dots become
 * underscores) with those labels. The Dropwizard bridge exports each Dropwizard metric as a family
 * of its own and refuses two of one name, so labelled series (jobs by queue and state, work by
 * kind, consumer lag by consumer) need this; {@link #UNLABELLED} keeps them out of the bridge.
 *
 * <p>Gauges with a {@link Number} value become gauges (a null value is left out: unknown), counters
 * become counters ({@code _total}), timers become summaries in seconds and histograms summaries in
 * their own unit, with the quantiles the bridge uses.
 *
 * <p>Example: {@code registry.counter(LabelledDropwizardExports.name("bothy.jobs.failures",
 * "bothy_job_kind", "sync.partition_maintenance"))} is exported as {@code
 * bothy_jobs_failures_total{bothy_job_kind="sync.partition_maintenance"}}.
 */
final class LabelledDropwizardExports implements MultiCollector {
  /** Lets the bridge export only the metrics without labels. */
  static final MetricFilter UNLABELLED = (name, metric) -> name.indexOf('{') < 0;

  private static final double[] QUANTILES = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};

  private final MetricRegistry registry;

  LabelledDropwizardExports(MetricRegistry registry) {
    this.registry = registry;
  }

  /**
   * The Dropwizard name of one labelled series.
   *
   * @param base the family's Dropwizard name, for example {@code bothy.jobs.failures}
   * @param labels label name, value, label name, value...; values must not hold {@code ,} or {@code
   *     =} or braces
   * @return {@code base{name=value,...}}
   */
  static String name(String base, String... labels) {
    if (labels.length == 0 || labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come as name, value pairs");
    }
    StringBuilder b = new StringBuilder(base).append('{');
    for (int i = 0; i < labels.length; i += 2) {
      String value = labels[i + 1];
      if (value.matches(".*[,={}].*")) {
        throw new IllegalArgumentException("a label value must not hold , = { or }: " + value);
      }
      b.append(i == 0 ? "" : ",").append(labels[i]).append('=').append(value);
    }
    return b.append('}').toString();
  }

  @Override
  public MetricSnapshots collect() {
    Map<String, List<Map.Entry<Labels, Metric>>> families = new TreeMap<>();
    for (Map.Entry<String, Metric> e : registry.getMetrics().entrySet()) {
      String name = e.getKey();
      int open = name.indexOf('{');
      if (open < 0 || !name.endsWith("}")) {
        continue;
      }
      families
          .computeIfAbsent(name.substring(0, open), k -> new ArrayList<>())
          .add(Map.entry(labels(name.substring(open + 1, name.length() - 1)), e.getValue()));
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    families.forEach((base, series) -> snapshot(prometheusName(base), series, out));
    return out.build();
  }

  private static Labels labels(String pairs) {
    Map<String, String> byName = new LinkedHashMap<>();
    for (String pair : pairs.split(",")) {
      int eq = pair.indexOf('=');
      byName.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return Labels.of(new ArrayList<>(byName.keySet()), new ArrayList<>(byName.values()));
  }

  private static String prometheusName(String base) {
    return base.replaceAll("[^a-zA-Z0-9_:]", "_");
  }

  private static void snapshot(
      String name, List<Map.Entry<Labels, Metric>> series, MetricSnapshots.Builder out) {
    Metric first = series.get(0).getValue();
    MetricSnapshot snapshot;
    if (first instanceof Gauge) {
      GaugeSnapshot.Builder g = GaugeSnapshot.builder().name(name);
      for (Map.Entry<Labels, Metric> s : series) {
        if (s.getValue() instanceof Gauge<?> gauge && gauge.getValue() instanceof Number n) {
          g.dataPoint(
              GaugeSnapshot.GaugeDataPointSnapshot.builder()
                  .labels(s.getKey())
                  .value(n.doubleValue())
                  .build());
        }
      }
      snapshot = g.build();
    } else if (first instanceof Counter) {
      CounterSnapshot.Builder c = CounterSnapshot.builder().name(name);
      for (Map.Entry<Labels, Metric> s : series) {
        if (s.getValue() instanceof Counter counter) {
          c.dataPoint(
              CounterSnapshot.CounterDataPointSnapshot.builder()
                  .labels(s.getKey())
                  .value(counter.getCount())
                  .build());
        }
      }
      snapshot = c.build();
    } else {
      SummarySnapshot.Builder summary = SummarySnapshot.builder().name(name);
      for (Map.Entry<Labels, Metric> s : series) {
        if (s.getValue() instanceof Timer timer) {
          summary.dataPoint(
              summaryPoint(
                  s.getKey(),
                  timer.getCount(),
                  timer.getSnapshot(),
                  1.0 / TimeUnit.SECONDS.toNanos(1)));
        } else if (s.getValue() instanceof Histogram histogram) {
          summary.dataPoint(
              summaryPoint(s.getKey(), histogram.getCount(), histogram.getSnapshot(), 1.0));
        }
      }
      snapshot = summary.build();
    }
    out.metricSnapshot(snapshot);
  }

  private static SummarySnapshot.SummaryDataPointSnapshot summaryPoint(
      Labels labels, long count, Snapshot values, double factor) {
    Quantiles.Builder quantiles = Quantiles.builder();
    for (double q : QUANTILES) {
      quantiles.quantile(new Quantile(q, values.getValue(q) * factor));
    }
    return SummarySnapshot.SummaryDataPointSnapshot.builder()
        .labels(labels)
        .quantiles(quantiles.build())
        .count(count)
        .build();
  }
}
