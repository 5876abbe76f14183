package dev.bothy.bus.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VerdictRulesTest {

  @Test
  void a_retryable_kind_naks_and_everything_else_terms() {
    assertThat(VerdictRules.of(BothyException.unavailable("db away", null))).isEqualTo(Verdict.NAK);
    assertThat(VerdictRules.of(BothyException.invalid("bad"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(BothyException.conflict("taken"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(BothyException.notFound("gone"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(BothyException.internal("bug"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(new IllegalStateException("plain"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(new Error("an error"))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.of(new java.io.IOException("checked, not a BothyException")))
        .isEqualTo(Verdict.TERM);
  }

  @Test
  void any_nak_wins_then_any_term_then_ack() {
    assertThat(VerdictRules.combine(List.of(Verdict.ACK, Verdict.TERM, Verdict.NAK)))
        .isEqualTo(Verdict.NAK);
    assertThat(VerdictRules.combine(List.of(Verdict.TERM, Verdict.ACK))).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.combine(List.of(Verdict.ACK, Verdict.ACK))).isEqualTo(Verdict.ACK);
    assertThat(VerdictRules.combine(List.of())).as("no handler took it").isEqualTo(Verdict.ACK);
  }

  @Test
  void nak_delays_follow_the_delivery_count_and_the_last_one_repeats() {
    assertThat(IntStream.rangeClosed(1, 9).mapToObj(VerdictRules::delayAfter).toList())
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            Duration.ofMinutes(2),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10));
    assertThatThrownBy(() -> VerdictRules.delayAfter(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void the_tenth_delivery_s_nak_is_terminal_and_nothing_else_changes() {
    assertThat(VerdictRules.MAX_DELIVER).isEqualTo(10);
    assertThat(VerdictRules.limited(Verdict.NAK, 9)).isEqualTo(Verdict.NAK);
    assertThat(VerdictRules.limited(Verdict.NAK, 10)).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.limited(Verdict.ACK, 10)).isEqualTo(Verdict.ACK);
    assertThat(VerdictRules.limited(Verdict.TERM, 1)).isEqualTo(Verdict.TERM);
    assertThat(VerdictRules.nakDelay(Verdict.NAK, 3)).contains(Duration.ofSeconds(30));
    assertThat(VerdictRules.nakDelay(Verdict.TERM, 3)).isEmpty();
  }

  @Test
  void a_dead_letter_names_the_kind_or_says_exception_or_error() {
    assertThat(VerdictRules.failureKind(BothyException.invalid("x"))).isEqualTo("invalid");
    assertThat(VerdictRules.failureKind(new IllegalArgumentException())).isEqualTo("exception");
    assertThat(VerdictRules.failureKind(new StackOverflowError())).isEqualTo("error");
  }

  @Test
  void names_have_the_module_first_with_an_underscore_or_a_dot() {
    assertThat(HandlerNames.validDurable("system_echo")).isTrue();
    assertThat(HandlerNames.validHandler("system.echo")).isTrue();
    assertThat(HandlerNames.validDurable("system.echo")).isFalse();
    assertThat(HandlerNames.validHandler("system_echo")).isFalse();
    assertThat(HandlerNames.validHandler("System.echo")).isFalse();
    assertThat(HandlerNames.validHandler("system.echo.more")).isFalse();
    assertThat(HandlerNames.validDurable("echo")).isFalse();
    assertThat(HandlerNames.validHandler("system." + "e".repeat(60))).isFalse();
    assertThat(HandlerNames.moduleOf("system_echo")).isEqualTo("system");
    assertThat(HandlerNames.moduleOf("webhooks.fan_out")).isEqualTo("webhooks");
  }
}
