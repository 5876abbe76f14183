package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeliveryVerdictTest {
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private static final Duration CAP = Duration.ofMinutes(10);

  private record Outcome(
      int status, Map<String, String> responseHeaders, Optional<String> errorKind)
      implements AttemptOutcome {}

  private static DeliveryVerdict classify(int status, Map<String, String> headers) {
    return DeliveryVerdict.classify(new Outcome(status, headers, Optional.empty()), NOW, CAP);
  }

  @Test
  void every_2xx_is_delivered() {
    for (int status : new int[] {200, 201, 202, 204, 299}) {
      assertThat(classify(status, Map.of())).isEqualTo(new DeliveryVerdict.Delivered());
    }
  }

  @Test
  void gone_disables() {
    assertThat(classify(410, Map.of())).isEqualTo(new DeliveryVerdict.Gone());
  }

  @Test
  void too_many_requests_and_unavailable_honour_retry_after_up_to_the_cap() {
    assertThat(classify(429, Map.of("retry-after", "30")))
        .isEqualTo(new DeliveryVerdict.RetryAfter(Duration.ofSeconds(30)));
    assertThat(classify(503, Map.of("retry-after", "Sun, 01 Mar 2026 10:01:00 GMT")))
        .isEqualTo(new DeliveryVerdict.RetryAfter(Duration.ofMinutes(1)));
    assertThat(classify(429, Map.of("retry-after", "7200")))
        .isEqualTo(new DeliveryVerdict.RetryAfter(CAP));
  }

  @Test
  void without_a_valid_retry_after_they_are_ordinary_failures() {
    assertThat(classify(429, Map.of())).isEqualTo(new DeliveryVerdict.Failed("status"));
    assertThat(classify(503, Map.of("retry-after", "later")))
        .isEqualTo(new DeliveryVerdict.Failed("status"));
  }

  @Test
  void retry_after_on_other_statuses_is_ignored() {
    assertThat(classify(500, Map.of("retry-after", "30")))
        .isEqualTo(new DeliveryVerdict.Failed("status"));
  }

  @Test
  void redirects_fail_and_are_never_followed() {
    for (int status : new int[] {301, 302, 303, 307, 308}) {
      assertThat(classify(status, Map.of("location", "https://example.com/")))
          .isEqualTo(new DeliveryVerdict.Failed("redirect"));
    }
  }

  @Test
  void other_statuses_fail() {
    for (int status : new int[] {100, 400, 401, 404, 500, 502, 504}) {
      assertThat(classify(status, Map.of())).isEqualTo(new DeliveryVerdict.Failed("status"));
    }
  }

  @Test
  void a_transport_error_fails_with_its_kind() {
    assertThat(DeliveryVerdict.classify(new Outcome(0, Map.of(), Optional.of("timeout")), NOW, CAP))
        .isEqualTo(new DeliveryVerdict.Failed("timeout"));
    assertThat(DeliveryVerdict.classify(new Outcome(0, Map.of(), Optional.empty()), NOW, CAP))
        .isEqualTo(new DeliveryVerdict.Failed("io"));
  }
}
