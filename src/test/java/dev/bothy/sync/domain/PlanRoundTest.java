package dev.bothy.sync.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlanRoundTest {
  @Test
  void a_contiguous_batch_is_processed_whole() {
    RoundPlan plan = PlanRound.plan(10, List.of(11L, 12L, 13L), 1);
    assertThat(plan.process()).containsExactly(11L, 12L, 13L);
    assertThat(plan.newLastSeq()).isEqualTo(13);
    assertThat(plan.lostEvents()).isFalse();
    assertThat(plan.lostFrom()).isZero();
  }

  @Test
  void a_single_event_moves_the_cursor_to_it() {
    assertThat(PlanRound.plan(0, List.of(1L), 1).newLastSeq()).isEqualTo(1);
  }

  @Test
  void events_removed_by_retention_are_reported_and_skipped() {
    RoundPlan plan = PlanRound.plan(10, List.of(50L, 51L), 50);
    assertThat(plan.process()).containsExactly(50L, 51L);
    assertThat(plan.lostFrom()).isEqualTo(11);
    assertThat(plan.lostTo()).isEqualTo(49);
    assertThat(plan.newLastSeq()).isEqualTo(51);
  }

  @Test
  void a_claimed_retention_loss_whose_first_number_is_not_the_minimum_is_a_gap() {
    assertThatThrownBy(() -> PlanRound.plan(10, List.of(52L), 50)).isInstanceOf(ConsumerGap.class);
  }

  @Test
  void a_jump_that_retention_does_not_explain_is_a_gap() {
    assertThatThrownBy(() -> PlanRound.plan(10, List.of(13L), 5))
        .isInstanceOf(ConsumerGap.class)
        .hasMessageContaining("expected event 11");
    assertThatThrownBy(() -> PlanRound.plan(10, List.of(13L), 11)).isInstanceOf(ConsumerGap.class);
  }

  @Test
  void a_hole_inside_the_batch_is_a_gap() {
    assertThatThrownBy(() -> PlanRound.plan(10, List.of(11L, 12L, 14L), 1))
        .isInstanceOf(ConsumerGap.class)
        .hasMessageContaining("expected event 13 in the batch, found 14");
  }

  @Test
  void an_empty_batch_is_not_a_round() {
    assertThatThrownBy(() -> PlanRound.plan(10, List.of(), 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The fuzz property: a plan is contiguous, starts after the cursor or at the minimum. */
  @Test
  void any_accepted_plan_is_contiguous_and_moves_the_cursor_forward() {
    Random random = new Random(20261201);
    for (int i = 0; i < 20_000; i++) {
      long lastSeq = random.nextInt(50);
      long minRetained = 1 + random.nextInt(80);
      long start = lastSeq + 1 + (random.nextBoolean() ? 0 : random.nextInt(40) - 5);
      List<Long> seqs = new ArrayList<>();
      long next = Math.max(1, start);
      int n = 1 + random.nextInt(6);
      for (int k = 0; k < n; k++) {
        seqs.add(next);
        next += random.nextInt(10) == 0 ? 2 : 1;
      }
      RoundPlan plan;
      try {
        plan = PlanRound.plan(lastSeq, seqs, minRetained);
      } catch (ConsumerGap e) {
        continue;
      }
      List<Long> p = plan.process();
      assertThat(p.get(0)).isIn(lastSeq + 1, minRetained);
      for (int k = 1; k < p.size(); k++) {
        assertThat(p.get(k)).isEqualTo(p.get(k - 1) + 1);
      }
      assertThat(plan.newLastSeq()).isGreaterThan(lastSeq).isEqualTo(p.get(p.size() - 1));
    }
  }
}
