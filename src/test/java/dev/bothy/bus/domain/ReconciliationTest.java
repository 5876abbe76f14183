package dev.bothy.bus.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReconciliationTest {
  private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
  private static final UUID ID = UUID.fromString("0190f000-0000-7000-8000-000000000042");
  private static final Duration DAY = Duration.ofDays(1);

  private static StreamTail last(long bothySeq, String id, long streamSeq) {
    return new StreamTail(streamSeq, false, OptionalLong.of(bothySeq), Optional.of(id), DAY);
  }

  private static Reconciliation.LogFacts log(long head, Optional<UUID> idOfLast) {
    return new Reconciliation.LogFacts(head, 1, idOfLast, Optional.of(NOW), NOW);
  }

  @Test
  void a_stream_ahead_of_the_cursor_moves_the_cursor_to_its_last_bothy_seq() {
    assertThat(Reconciliation.decide(40, last(42, ID.toString(), 7), log(50, Optional.of(ID))))
        .isEqualTo(new Reconciliation.Ahead(40, 42, 7));
  }

  @Test
  void a_stream_at_the_cursor_is_in_step_and_the_next_message_follows_its_last_sequence() {
    assertThat(Reconciliation.decide(42, last(42, ID.toString(), 7), log(50, Optional.of(ID))))
        .isEqualTo(new Reconciliation.InStep(7));
  }

  @Test
  void a_stream_behind_the_cursor_stops_the_relay() {
    assertThat(Reconciliation.decide(45, last(42, ID.toString(), 7), log(50, Optional.of(ID))))
        .isEqualTo(new Reconciliation.Behind(42, 45));
  }

  @Test
  void an_empty_stream_is_behind_a_cursor_whose_event_is_younger_than_its_max_age() {
    assertThat(Reconciliation.decide(45, StreamTail.empty(9, DAY), log(50, Optional.empty())))
        .isEqualTo(new Reconciliation.Behind(0, 45));
  }

  @Test
  void an_empty_stream_agrees_with_a_new_cursor_an_aged_out_event_or_one_the_log_lost() {
    assertThat(Reconciliation.decide(0, StreamTail.empty(0, DAY), log(0, Optional.empty())))
        .isEqualTo(new Reconciliation.InStep(0));
    Reconciliation.LogFacts old =
        new Reconciliation.LogFacts(
            50, 1, Optional.empty(), Optional.of(NOW.minus(DAY).minusSeconds(1)), NOW);
    assertThat(Reconciliation.decide(45, StreamTail.empty(9, DAY), old))
        .isEqualTo(new Reconciliation.InStep(9));
    Reconciliation.LogFacts gone =
        new Reconciliation.LogFacts(50, 1, Optional.empty(), Optional.empty(), NOW);
    assertThat(Reconciliation.decide(45, StreamTail.empty(9, DAY), gone))
        .isEqualTo(new Reconciliation.InStep(9));
  }

  @Test
  void a_last_message_of_another_log_or_writer_is_a_mismatch() {
    assertThat(
            Reconciliation.decide(
                42, last(42, UUID.randomUUID().toString(), 7), log(50, Optional.of(ID))))
        .isInstanceOf(Reconciliation.Mismatch.class);
    assertThat(Reconciliation.decide(42, last(60, ID.toString(), 7), log(50, Optional.empty())))
        .isInstanceOf(Reconciliation.Mismatch.class);
    StreamTail foreign = new StreamTail(7, false, OptionalLong.empty(), Optional.empty(), DAY);
    assertThat(Reconciliation.decide(42, foreign, log(50, Optional.empty())))
        .isInstanceOf(Reconciliation.Mismatch.class);
  }

  @Test
  void a_stream_behind_a_cursor_over_events_retention_removed_is_in_step() {
    Reconciliation.LogFacts moved =
        new Reconciliation.LogFacts(50, 46, Optional.empty(), Optional.empty(), NOW);
    assertThat(Reconciliation.decide(45, last(42, ID.toString(), 7), moved))
        .isEqualTo(new Reconciliation.InStep(7));
  }

  @Test
  void a_last_message_the_log_no_longer_holds_is_judged_by_its_bothy_seq_alone() {
    assertThat(
            Reconciliation.decide(
                40, last(42, UUID.randomUUID().toString(), 7), log(50, Optional.empty())))
        .isEqualTo(new Reconciliation.Ahead(40, 42, 7));
  }
}
