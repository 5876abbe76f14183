package dev.bothy.console.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HistoryTest {
  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  private static History.Sample sample(int second, long head) {
    return new History.Sample(
        T0.plusSeconds(second),
        head,
        List.of(new History.ConsumerPoint("webhooks", head / 2, second)),
        OptionalLong.empty(),
        Optional.empty());
  }

  private static History.Sample withJobs(int second, long created, long completed, long discarded) {
    return new History.Sample(
        T0.plusSeconds(second),
        0,
        List.of(),
        OptionalLong.empty(),
        Optional.of(new History.JobCounts(created, completed, discarded)));
  }

  @Test
  void a_full_history_drops_its_oldest_sample_first() {
    History history = new History(3);
    for (int i = 0; i < 5; i++) {
      history.add(sample(i * 10, i * 100L));
    }
    assertThat(history.points())
        .extracting(p -> p.sample().headSeq())
        .containsExactly(200L, 300L, 400L);
  }

  @Test
  void the_append_rate_is_the_head_delta_over_the_time_between_samples() {
    History history = new History(10);
    assertThat(history.lastAppendRate()).isEmpty();
    history.add(sample(0, 1_000));
    assertThat(history.lastAppendRate()).isEmpty();
    history.add(sample(10, 1_500));
    history.add(sample(30, 1_600));
    assertThat(history.points().get(0).appendRate()).isEmpty();
    assertThat(history.points().get(1).appendRate()).hasValue(50.0);
    assertThat(history.points().get(2).appendRate()).hasValue(5.0);
    assertThat(history.lastAppendRate()).hasValue(5.0);
    assertThat(history.points()).hasSize(3);
  }

  @Test
  void a_head_that_went_backwards_or_samples_at_one_instant_have_no_rate() {
    History history = new History(10);
    history.add(sample(0, 1_000));
    history.add(sample(10, 10));
    history.add(sample(10, 20));
    assertThat(history.points()).allSatisfy(p -> assertThat(p.appendRate()).isEmpty());
  }

  @Test
  void job_rates_are_the_counts_of_a_sample_over_the_time_since_the_one_before() {
    History history = new History(10);
    history.add(sample(0, 0));
    history.add(withJobs(10, 500, 200, 10));
    history.add(withJobs(30, 40, 100, 0));
    history.add(sample(40, 0));
    List<History.Point> points = history.points();
    assertThat(points.get(0).jobRates()).as("the first sample has nothing before it").isEmpty();
    assertThat(points.get(1).jobRates()).contains(new History.JobRates(50.0, 20.0, 1.0));
    assertThat(points.get(2).jobRates()).contains(new History.JobRates(2.0, 5.0, 0.0));
    assertThat(points.get(3).jobRates()).as("a sample without counts").isEmpty();
    assertThatThrownBy(() -> new History.JobCounts(-1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void the_capacity_is_the_window_over_the_interval_and_at_least_two() {
    assertThat(History.capacity(Duration.ofHours(1), Duration.ofSeconds(10))).isEqualTo(360);
    assertThat(History.capacity(Duration.ofSeconds(1), Duration.ofSeconds(10))).isEqualTo(2);
    assertThatThrownBy(() -> new History(1)).isInstanceOf(IllegalArgumentException.class);
  }
}
