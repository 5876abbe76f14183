package dev.bothy.platform.jobs.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JobRulesTest {
  private static final Duration BASE = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofMinutes(1);

  @Test
  void the_backoff_doubles_per_attempt_up_to_the_cap_and_jitter_takes_at_most_a_quarter() {
    assertThat(Backoff.delay(1, BASE, MAX, 0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(Backoff.delay(2, BASE, MAX, 0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(Backoff.delay(5, BASE, MAX, 0)).isEqualTo(Duration.ofSeconds(16));
    assertThat(Backoff.delay(7, BASE, MAX, 0)).isEqualTo(MAX);
    assertThat(Backoff.delay(1000, BASE, MAX, 0)).as("no overflow").isEqualTo(MAX);
    assertThat(Backoff.delay(3, BASE, MAX, 0.999))
        .isGreaterThan(Duration.ofSeconds(3))
        .isLessThan(Duration.ofSeconds(4));
    assertThatThrownBy(() -> Backoff.delay(0, BASE, MAX, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Backoff.delay(1, BASE, MAX, 1.0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  enum Mode {
    FAST
  }

  record Good(UUID id, long seq, int n, short s, boolean flag, Boolean maybe, Mode mode) {}

  record WithText(UUID id, String body) {}

  record WithList(List<UUID> ids) {}

  record WithMap(Map<String, Long> counts) {}

  record Generic<T>(UUID id) {}

  static final class NotARecord {}

  @Test
  void args_hold_only_ids_numbers_enums_and_booleans() {
    assertThat(ArgsRules.problems(Good.class)).isEmpty();
    assertThat(ArgsRules.problems(WithText.class))
        .containsExactly(
            "WithText.body is a String; job args hold only IDs (UUID), numbers, enums and"
                + " booleans");
    assertThat(ArgsRules.problems(WithList.class)).singleElement().asString().contains("List");
    assertThat(ArgsRules.problems(WithMap.class)).singleElement().asString().contains("Map");
    assertThat(ArgsRules.problems(Generic.class)).singleElement().asString().contains("generic");
    assertThat(ArgsRules.problems(NotARecord.class))
        .singleElement()
        .asString()
        .contains("is not a record");
  }

  @Test
  void kind_and_queue_names_have_one_shape() {
    assertThat(JobNames.validKind("sync.consumer_probe")).isTrue();
    assertThat(JobNames.validKind("webhooks.deliver")).isTrue();
    assertThat(JobNames.validKind("deliver")).isFalse();
    assertThat(JobNames.validKind("a.b.c")).isFalse();
    assertThat(JobNames.validKind("Sync.Probe")).isFalse();
    assertThat(JobNames.validKind(null)).isFalse();
    assertThat(JobNames.validQueue("default")).isTrue();
    assertThat(JobNames.validQueue("web_hooks")).isTrue();
    assertThat(JobNames.validQueue("web-hooks")).isFalse();
    assertThat(JobNames.validQueue("")).isFalse();
  }
}
