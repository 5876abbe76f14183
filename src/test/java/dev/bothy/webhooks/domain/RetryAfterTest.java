package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private static final Duration CAP = Duration.ofHours(1);

  @Test
  void delta_seconds_are_read() {
    assertThat(RetryAfter.parse("120", NOW, CAP)).contains(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse(" 0 ", NOW, CAP)).contains(Duration.ZERO);
  }

  @Test
  void a_longer_wait_is_cut_to_the_cap() {
    assertThat(RetryAfter.parse("86400", NOW, CAP)).contains(CAP);
    assertThat(RetryAfter.parse("99999999999999999999", NOW, CAP)).contains(CAP);
  }

  @Test
  void an_http_date_is_measured_from_the_given_instant() {
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 10:02:30 GMT", NOW, CAP))
        .contains(Duration.ofSeconds(150));
    assertThat(RetryAfter.parse("Mon, 02 Mar 2026 10:00:00 GMT", NOW, CAP)).contains(CAP);
  }

  @Test
  void a_date_in_the_past_means_now() {
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 09:00:00 GMT", NOW, CAP)).contains(Duration.ZERO);
  }

  @Test
  void other_values_are_invalid() {
    for (String bad :
        new String[] {"", "-5", "1.5", "soon", "5 s", "2026-03-01T10:05:00Z", "+5", "0x10"}) {
      assertThat(RetryAfter.parse(bad, NOW, CAP)).as(bad).isEmpty();
    }
    assertThat(RetryAfter.parse(null, NOW, CAP)).isEmpty();
  }

  @Test
  void the_cap_must_be_positive() {
    assertThatThrownBy(() -> RetryAfter.parse("5", NOW, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
