package dev.bothy.sync.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The resync rule of reads at its edges. */
class AppendRulesTest {

  @Test
  void a_reader_right_below_the_minimum_or_above_it_needs_no_resync() {
    assertThat(AppendRules.mustResync(4, 5)).isFalse();
    assertThat(AppendRules.mustResync(5, 5)).isFalse();
    assertThat(AppendRules.mustResync(0, 1)).isFalse();
  }

  @Test
  void a_reader_whose_next_number_is_gone_must_resync() {
    assertThat(AppendRules.mustResync(3, 5)).isTrue();
    assertThat(AppendRules.mustResync(0, 2)).isTrue();
  }

  @Test
  void an_empty_log_never_asks_for_a_resync() {
    assertThat(AppendRules.mustResync(0, 0)).isFalse();
    assertThat(AppendRules.mustResync(Long.MAX_VALUE, 0)).isFalse();
  }

  @Test
  void a_position_at_the_largest_long_is_past_the_head_and_not_a_resync() {
    assertThat(AppendRules.mustResync(Long.MAX_VALUE, 1)).isFalse();
    assertThat(AppendRules.mustResync(Long.MAX_VALUE - 1, 1)).isFalse();
    assertThat(AppendRules.mustResync(Long.MAX_VALUE, Long.MAX_VALUE)).isFalse();
  }
}
