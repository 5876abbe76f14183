package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryBackoffTest {
  private final RetryBackoff backoff =
      new RetryBackoff(Duration.ofMillis(10), Duration.ofMillis(1000), new Random(3));

  @Test
  void the_delay_doubles_per_attempt_within_half_and_full_of_the_ceiling() {
    for (int attempt = 1; attempt <= 7; attempt++) {
      long ceiling = 10L << (attempt - 1);
      for (int i = 0; i < 50; i++) {
        Duration d = backoff.after(attempt);
        assertThat(d.toNanos())
            .isBetween(
                Duration.ofMillis(ceiling).toNanos() / 2, Duration.ofMillis(ceiling).toNanos());
      }
    }
  }

  @Test
  void the_delay_never_exceeds_the_maximum_even_after_many_attempts() {
    for (int attempt : new int[] {8, 20, 63, 64, 1000}) {
      assertThat(backoff.after(attempt)).isBetween(Duration.ofMillis(500), Duration.ofMillis(1000));
    }
  }

  @Test
  void a_zero_base_gives_no_delay() {
    RetryBackoff none = new RetryBackoff(Duration.ZERO, Duration.ZERO, new Random(4));

    assertThat(none.after(3)).isEqualTo(Duration.ZERO);
  }
}
