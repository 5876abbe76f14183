package dev.bothy.bus.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReconnectBackoffTest {
  private final ReconnectBackoff backoff =
      new ReconnectBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

  @Test
  void the_wait_doubles_from_the_first_and_stops_at_the_cap() {
    assertThat(backoff.delay(1, 0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.delay(2, 0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.delay(5, 0)).isEqualTo(Duration.ofSeconds(16));
    assertThat(backoff.delay(6, 0)).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.delay(1_000_000, 0)).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.delay(Long.MAX_VALUE, 0.99)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void the_jitter_adds_up_to_a_fifth_and_never_passes_the_cap() {
    assertThat(backoff.delay(1, 0.5)).isEqualTo(Duration.ofMillis(1100));
    assertThat(backoff.delay(4, 0.999_999)).isLessThan(Duration.ofMillis(9600));
    assertThat(backoff.delay(6, 0.999)).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.delay(0, 0))
        .as("an attempt below 1 counts as the first")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void a_cap_below_the_first_wait_is_refused() {
    assertThatThrownBy(() -> new ReconnectBackoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ReconnectBackoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
