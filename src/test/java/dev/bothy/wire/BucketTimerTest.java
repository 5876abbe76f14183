package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A timer with fixed buckets counts every Dropwizard way of recording a time. */
class BucketTimerTest {
  @Test
  void every_way_of_recording_a_time_fills_the_buckets_and_the_timer_alike() throws Exception {
    BucketTimer timer = BucketTimer.of(0.001, 1);

    timer.update(Duration.ofMillis(500));
    timer.update(2, TimeUnit.SECONDS);
    timer.time(() -> {});
    timer.time(() -> 1);
    timer.timeSupplier(() -> 1);
    timer.time().stop();

    BucketTimer.Counts counts = timer.counts();
    assertThat(counts.upperBounds()).containsExactly(0.001, 1, Double.POSITIVE_INFINITY);
    assertThat(counts.counts()).containsExactly(4, 1, 1);
    assertThat(timer.getCount()).isEqualTo(6);
    assertThat(counts.sum()).isGreaterThanOrEqualTo(2.5).isLessThan(2.51);
  }

  @Test
  void a_negative_time_is_ignored_as_the_timer_ignores_it() {
    BucketTimer timer = BucketTimer.of(1);

    timer.update(-1, TimeUnit.NANOSECONDS);

    assertThat(timer.getCount()).isZero();
    assertThat(timer.counts().counts()).containsExactly(0, 0);
  }

  @Test
  void bounds_must_be_positive_and_rising() {
    assertThatThrownBy(() -> BucketTimer.of()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BucketTimer.of(0.1, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BucketTimer.of(0, 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
