package dev.bothy.wire;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
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
 * Exports the whole Dropwizard registry as Prometheus metric families that pass {@code promtool
 * check metrics}: every family has a snake_case name with its unit and a HELP line ({@link
 * PrometheusFamilies} says which).
 *
 * <p>A Dropwizard metric named {@code base{label=value,label=value}} joins the family of {@code
 * base} with those labels, so labelled series (jobs by queue and state, work by kind, consumer lag
 * by consumer) become one family; a metric without braces is a family of its own.
 *
 * <p>Gauges with a {@link Number} or {@link Boolean} value become gauges (a null value is left out:
 * unknown; a family left with no series is not exported). Bothy's counters become counters ({@code
 * _total}); other libraries' Dropwizard counters go up and down (active requests, running threads)
 * and become gauges. Meters become counters of their count. Timers become summaries in seconds,
 * histograms summaries in their own unit (or in seconds where {@link PrometheusFamilies} scales
 * them), with quantiles 0.5, 0.75, 0.95, 0.98, 0.99 and 0.999 and a count. A {@link BucketTimer}
 * becomes a histogram in seconds: its buckets ({@code _bucket{le=...}}, cumulative, up to {@code
 * +Inf}), {@code _sum} and {@code _count}.
 *
 * <p>Example: {@code registry.counter(LabelledDropwizardExports.name("bothy.jobs.failures",
 * "bothy_job_kind", "sync.partition_maintenance"))} is exported as {@code
 * bothy_jobs_failures_total{bothy_job_kind="sync.partition_maintenance"}}.
 */
final class LabelledDropwizardExports implements MultiCollector {
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
      if (holdsSeparator(value)) {
        throw new IllegalArgumentException("a label value must not hold , = { or }: " + value);
      }
      b.append(i == 0 ? "" : ",").append(labels[i]).append('=').append(value);
    }
    return b.append('}').toString();
  }

  /**
   * Whether a label value holds a character the exporter's parse of a name splits on. A scan, not a
   * regular expression: this runs for every counted job, dispatch and attempt, and {@code
   * String.matches} compiled its pattern on each call (about 2.7 percent of a bus worker's CPU
   * outside the JIT, D-BD-16); {@code .*} also stopped at a line break, so a separator after one
   * passed.
   */
  private static boolean holdsSeparator(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ',' || c == '=' || c == '{' || c == '}') {
        return true;
      }
    }
    return false;
  }

  @Override
  public MetricSnapshots collect() {
    Map<String, List<Map.Entry<Labels, Metric>>> families = new TreeMap<>();
    for (Map.Entry<String, Metric> e : registry.getMetrics().entrySet()) {
      String name = e.getKey();
      int open = name.indexOf('{');
      if (open < 0 || !name.endsWith("}")) {
        families
            .computeIfAbsent(name, k -> new ArrayList<>())
            .add(Map.entry(Labels.EMPTY, e.getValue()));
      } else {
        families
            .computeIfAbsent(name.substring(0, open), k -> new ArrayList<>())
            .add(Map.entry(labels(name.substring(open + 1, name.length() - 1)), e.getValue()));
      }
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    families.forEach(
        (base, series) ->
            snapshot(PrometheusFamilies.of(base, series.get(0).getValue()), series, out));
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

  private static void snapshot(
      PrometheusFamilies.Family family,
      List<Map.Entry<Labels, Metric>> series,
      MetricSnapshots.Builder out) {
    switch (family.type()) {
      case GAUGE -> {
        GaugeSnapshot.Builder g = GaugeSnapshot.builder().name(family.name()).help(family.help());
        boolean any = false;
        for (Map.Entry<Labels, Metric> s : series) {
          Double value = gaugeValue(s.getValue());
          if (value != null) {
            any = true;
            g.dataPoint(
                GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(s.getKey())
                    .value(value * family.scale())
                    .build());
          }
        }
        if (any) {
          out.metricSnapshot(g.build());
        }
      }
      case COUNTER -> {
        CounterSnapshot.Builder c =
            CounterSnapshot.builder().name(family.name()).help(family.help());
        for (Map.Entry<Labels, Metric> s : series) {
          c.dataPoint(
              CounterSnapshot.CounterDataPointSnapshot.builder()
                  .labels(s.getKey())
                  .value(count(s.getValue()))
                  .build());
        }
        out.metricSnapshot(c.build());
      }
      case SUMMARY -> {
        SummarySnapshot.Builder summary =
            SummarySnapshot.builder().name(family.name()).help(family.help());
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
                summaryPoint(
                    s.getKey(), histogram.getCount(), histogram.getSnapshot(), family.scale()));
          }
        }
        out.metricSnapshot(summary.build());
      }
      case HISTOGRAM -> {
        HistogramSnapshot.Builder histogram =
            HistogramSnapshot.builder().name(family.name()).help(family.help());
        for (Map.Entry<Labels, Metric> s : series) {
          if (s.getValue() instanceof BucketTimer timer) {
            BucketTimer.Counts counts = timer.counts();
            histogram.dataPoint(
                HistogramSnapshot.HistogramDataPointSnapshot.builder()
                    .labels(s.getKey())
                    .classicHistogramBuckets(
                        ClassicHistogramBuckets.of(counts.upperBounds(), counts.counts()))
                    .sum(counts.sum())
                    .build());
          }
        }
        out.metricSnapshot(histogram.build());
      }
    }
  }

  /** A gauge's value, a counter's count where a counter goes both ways, or null when unknown. */
  private static Double gaugeValue(Metric metric) {
    if (metric instanceof Counter counter) {
      return (double) counter.getCount();
    }
    if (metric instanceof Gauge<?> gauge) {
      Object value = gauge.getValue();
      if (value instanceof Number n) {
        return n.doubleValue();
      }
      if (value instanceof Boolean b) {
        return b ? 1.0 : 0.0;
      }
    }
    return null;
  }

  private static double count(Metric metric) {
    if (metric instanceof Counter counter) {
      return counter.getCount();
    }
    if (metric instanceof Meter meter) {
      return meter.getCount();
    }
    return 0;
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
