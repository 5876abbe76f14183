package dev.bothy.wire;

import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Dropwizard timer that also counts each time into fixed buckets, so {@link
 * LabelledDropwizardExports} exports it as a Prometheus histogram ({@code _bucket{le=...}}, {@code
 * _sum}, {@code _count}) instead of a summary: buckets add up across processes and over any range,
 * quantiles of a summary do not. The JSON of {@code /metrics} still shows it as a timer, with the
 * quantiles of the usual decaying reservoir.
 *
 * <p>Every way the timer records a time ({@code update}, {@code time(...)}, a {@code Context}) goes
 * through its reservoir, which is where the buckets are counted; a negative time is ignored, as the
 * timer ignores it. Recording costs one binary search over the bounds and three atomic additions.
 */
final class BucketTimer extends Timer {
  private final Buckets buckets;

  private BucketTimer(Buckets buckets) {
    super(buckets);
    this.buckets = buckets;
  }

  /**
   * Creates a timer with the given bucket bounds; {@code +Inf} is added after the last.
   *
   * @param upperBoundsSeconds the upper bounds in seconds, positive and strictly rising
   * @return the timer
   * @throws IllegalArgumentException when there is no bound or the bounds do not rise
   */
  static BucketTimer of(double... upperBoundsSeconds) {
    if (upperBoundsSeconds.length == 0 || upperBoundsSeconds[0] <= 0) {
      throw new IllegalArgumentException("bucket bounds must be given and positive");
    }
    for (int i = 1; i < upperBoundsSeconds.length; i++) {
      if (upperBoundsSeconds[i] <= upperBoundsSeconds[i - 1]) {
        throw new IllegalArgumentException("bucket bounds must rise strictly");
      }
    }
    return new BucketTimer(new Buckets(upperBoundsSeconds.clone()));
  }

  /**
   * What the buckets hold now.
   *
   * @param upperBounds the bounds in seconds, the last {@code +Inf}
   * @param counts the times in each bucket, not cumulative, one per bound
   * @param sum the sum of the times in seconds
   */
  record Counts(double[] upperBounds, long[] counts, double sum) {}

  /**
   * Returns what the buckets hold; each bucket is read once, so the counts never fall between two
   * reads of the same scrape, though a time recorded meanwhile may be in the sum and not yet in its
   * bucket.
   *
   * @return the bounds, counts and sum
   */
  Counts counts() {
    return buckets.counts();
  }

  /** The timer's reservoir: the decaying sample for the JSON, and the buckets. */
  private static final class Buckets implements Reservoir {
    private final Reservoir sample = new ExponentiallyDecayingReservoir();
    private final double[] upperBounds;
    private final long[] upperBoundNanos;
    private final LongAdder[] counts;
    private final LongAdder sumNanos = new LongAdder();

    Buckets(double[] upperBoundsSeconds) {
      upperBounds = Arrays.copyOf(upperBoundsSeconds, upperBoundsSeconds.length + 1);
      upperBounds[upperBoundsSeconds.length] = Double.POSITIVE_INFINITY;
      upperBoundNanos = new long[upperBoundsSeconds.length];
      for (int i = 0; i < upperBoundsSeconds.length; i++) {
        upperBoundNanos[i] = Math.round(upperBoundsSeconds[i] * TimeUnit.SECONDS.toNanos(1));
      }
      counts = new LongAdder[upperBounds.length];
      for (int i = 0; i < counts.length; i++) {
        counts[i] = new LongAdder();
      }
    }

    @Override
    public int size() {
      return sample.size();
    }

    @Override
    public void update(long nanos) {
      sample.update(nanos);
      int at = Arrays.binarySearch(upperBoundNanos, nanos);
      // A time on a bound belongs to that bucket (le); otherwise to the first bound above it.
      counts[at >= 0 ? at : -at - 1].increment();
      sumNanos.add(nanos);
    }

    @Override
    public Snapshot getSnapshot() {
      return sample.getSnapshot();
    }

    Counts counts() {
      long[] now = new long[counts.length];
      for (int i = 0; i < now.length; i++) {
        now[i] = counts[i].sum();
      }
      return new Counts(upperBounds.clone(), now, sumNanos.sum() / 1e9);
    }
  }
}
