package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
  private final RetrySchedule schedule = RetrySchedule.standard();

  @Test
  void the_middle_jitter_gives_the_svix_schedule() {
    List<Duration> delays =
        IntStream.rangeClosed(1, 7)
            .mapToObj(n -> schedule.delayAfter(n, 0.5).orElseThrow())
            .toList();
    assertThat(delays)
        .containsExactly(
            Duration.ofSeconds(5),
            Duration.ofMinutes(5),
            Duration.ofMinutes(30),
            Duration.ofHours(2),
            Duration.ofHours(5),
            Duration.ofHours(10),
            Duration.ofHours(10));
  }

  @Test
  void jitter_moves_a_delay_by_at_most_twenty_percent_either_way() {
    assertThat(schedule.delayAfter(2, 0.0)).contains(Duration.ofMinutes(4));
    assertThat(schedule.delayAfter(2, 1.0)).contains(Duration.ofMinutes(6));
    assertThat(schedule.delayAfter(1, 0.25)).contains(Duration.ofMillis(4500));
  }

  @Test
  void after_the_seventh_failure_the_schedule_is_exhausted() {
    assertThat(schedule.maxAttempts()).isEqualTo(8);
    assertThat(schedule.delayAfter(7, 0.5)).isPresent();
    assertThat(schedule.delayAfter(8, 0.5)).isEqualTo(Optional.empty());
    assertThat(schedule.delayAfter(100, 0.5)).isEmpty();
  }

  @Test
  void the_whole_schedule_spans_more_than_a_day() {
    Duration total = RetrySchedule.DELAYS.stream().reduce(Duration.ZERO, Duration::plus);
    assertThat(total).isGreaterThan(Duration.ofDays(1)).isLessThan(Duration.ofHours(28));
  }

  @Test
  void bad_arguments_are_refused() {
    assertThatThrownBy(() -> schedule.delayAfter(0, 0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> schedule.delayAfter(1, -0.1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> schedule.delayAfter(1, 1.1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> schedule.delayAfter(1, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
