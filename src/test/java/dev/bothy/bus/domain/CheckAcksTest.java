package dev.bothy.bus.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.domain.PublishOutcome.Failed;
import dev.bothy.bus.domain.PublishOutcome.Stored;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CheckAcksTest {

  @Test
  void acks_right_after_the_base_in_order_complete_the_window_duplicates_included() {
    CheckAcks.Verdict v =
        CheckAcks.check(
            10, List.of(new Stored(11, false), new Stored(12, true), new Stored(13, false)));
    assertThat(v).isEqualTo(new CheckAcks.Verdict(3, 13, OptionalLong.empty(), false));
    assertThat(v.complete(3)).isTrue();
  }

  @Test
  void the_acked_prefix_stops_at_the_first_failure_even_when_later_messages_were_stored() {
    CheckAcks.Verdict v =
        CheckAcks.check(
            10, List.of(new Stored(11, false), new Failed(false), new Stored(13, false)));
    assertThat(v).isEqualTo(new CheckAcks.Verdict(1, 11, OptionalLong.empty(), false));
    assertThat(v.complete(3)).isFalse();
  }

  @Test
  void a_refusal_for_a_wrong_last_sequence_says_another_writer_moved_the_stream() {
    assertThat(CheckAcks.check(10, List.of(new Failed(true), new Failed(true))))
        .isEqualTo(new CheckAcks.Verdict(0, 10, OptionalLong.empty(), true));
  }

  @Test
  void an_ack_away_from_its_place_is_a_hole_or_a_second_copy() {
    // A duplicate pointing back: the stream had this id stored earlier (a purged stream whose
    // duplicate window still remembers it); a new copy further on: a republish after the window.
    assertThat(CheckAcks.check(10, List.of(new Stored(11, false), new Stored(4, true))))
        .isEqualTo(new CheckAcks.Verdict(1, 11, OptionalLong.of(1), false));
    assertThat(CheckAcks.check(10, List.of(new Stored(12, false))).misplacedAt())
        .isEqualTo(OptionalLong.of(0));
  }
}
