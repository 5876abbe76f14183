package dev.bothy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KernelTest {

  @Test
  void the_settable_clock_moves_only_when_told() {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    SettableClock clock = new SettableClock(start);

    assertThat(clock.now()).isEqualTo(start);
    assertThat(clock.advance(Duration.ofMinutes(5))).isEqualTo(start.plusSeconds(300));
    clock.set(start);
    assertThat(clock.now()).isEqualTo(start);
    assertThatThrownBy(() -> clock.set(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void the_system_clock_follows_the_operating_system() {
    Instant before = Instant.now();
    Instant now = Clock.system().now();

    assertThat(now).isBetween(before, Instant.now());
  }

  @Test
  void each_error_kind_has_its_factory_and_stable_code() {
    assertThat(BothyException.notFound("x").kind()).isEqualTo(ErrorKind.NOT_FOUND);
    assertThat(BothyException.invalid("x").kind()).isEqualTo(ErrorKind.INVALID);
    assertThat(BothyException.conflict("x").kind()).isEqualTo(ErrorKind.CONFLICT);
    assertThat(BothyException.unavailable("x", null).kind()).isEqualTo(ErrorKind.UNAVAILABLE);
    assertThat(BothyException.internal("x").kind()).isEqualTo(ErrorKind.INTERNAL);
    assertThat(ErrorKind.NOT_FOUND.code()).isEqualTo("not_found");
    assertThat(ErrorKind.INVALID.code()).isEqualTo("invalid");
    assertThat(ErrorKind.CONFLICT.code()).isEqualTo("conflict");
    assertThat(ErrorKind.UNAVAILABLE.code()).isEqualTo("unavailable");
    assertThat(ErrorKind.INTERNAL.code()).isEqualTo("internal");
  }

  @Test
  void only_an_unavailable_dependency_is_worth_a_later_retry() {
    assertThat(ErrorKind.UNAVAILABLE.retryable()).isTrue();
    assertThat(ErrorKind.values())
        .filteredOn(ErrorKind::retryable)
        .containsExactly(ErrorKind.UNAVAILABLE);
  }

  @Test
  void the_build_version_comes_from_the_maven_project() {
    assertThat(BuildInfo.version()).matches("\\d+\\.\\d+\\.\\d+.*").doesNotContain("${");
  }
}
