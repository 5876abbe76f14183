package dev.bothy.bus.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterError;
import dev.bothy.bus.DeadLetterKey;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dead letters' pages, capped counts and error history on a real PostgreSQL, as bothy_app. */
class DeadLetterStoreTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00.123456Z");

  private final JooqDeadLetterRepository store = new JooqDeadLetterRepository();

  private static DeadLetter letter(String handler, Instant deadAt, String message) {
    return new DeadLetter(
        Ids.newId(),
        handler,
        "probe_main",
        UUID.randomUUID(),
        7,
        "settings.updated",
        "invalid",
        "java.lang.IllegalArgumentException",
        message,
        3,
        deadAt,
        Optional.empty(),
        0);
  }

  @Test
  void pages_run_newest_death_first_by_key_without_overlap_and_counts_stop_at_the_cap() {
    UnitOfWork unit = new EventLogFixture(PG.app()).uow;
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      // Two deaths share each instant but the last: the id breaks the tie.
      DeadLetter l = letter("probe.h" + i, T0.plusSeconds(i / 2), "failed " + i);
      written.add(unit.run(() -> store.upsert(l)).id());
    }
    UUID replayed = written.get(6);
    unit.run(
        () -> {
          store.markReplayed(replayed, T0.plusSeconds(60));
          return null;
        });

    List<DeadLetter> seen = new ArrayList<>();
    Optional<DeadLetterKey> before = Optional.empty();
    int pages = 0;
    do {
      Optional<DeadLetterKey> key = before;
      List<DeadLetter> page = unit.run(() -> store.page(false, key, 2));
      seen.addAll(page);
      before = page.size() < 2 ? Optional.empty() : Optional.of(DeadLetterKey.of(page.get(1)));
      pages++;
    } while (before.isPresent() && pages < 10);

    assertThat(seen).extracting(DeadLetter::id).doesNotHaveDuplicates().hasSize(6);
    assertThat(seen).extracting(DeadLetter::id).doesNotContain(replayed);
    for (int i = 1; i < seen.size(); i++) {
      DeadLetter newer = seen.get(i - 1);
      DeadLetter older = seen.get(i);
      assertThat(older.deadAt()).isBeforeOrEqualTo(newer.deadAt());
      if (older.deadAt().equals(newer.deadAt())) {
        // PostgreSQL orders uuid bytewise: the order of the lower-case text.
        assertThat(older.id().toString()).isLessThan(newer.id().toString());
      }
    }
    assertThat(unit.run(() -> store.page(true, Optional.empty(), 10)))
        .extracting(DeadLetter::id)
        .hasSize(7)
        .first()
        .isEqualTo(replayed);

    assertThat(unit.run(() -> store.countUpTo(false, 100))).isEqualTo(6);
    assertThat(unit.run(() -> store.countUpTo(true, 100))).isEqualTo(7);
    assertThat(unit.run(() -> store.countUpTo(true, 4))).as("stops at the cap").isEqualTo(4);
  }

  @Test
  void each_death_of_a_pair_adds_to_its_error_history() {
    UnitOfWork unit = new EventLogFixture(PG.app()).uow;
    DeadLetter first = letter("probe.again", T0, "first failure");
    DeadLetter stored = unit.run(() -> store.upsert(first));
    unit.run(
        () -> {
          store.markReplayed(stored.id(), T0.plusSeconds(5));
          return null;
        });
    DeadLetter again =
        new DeadLetter(
            Ids.newId(),
            first.handler(),
            first.durable(),
            first.eventId(),
            first.eventSeq(),
            first.eventType(),
            "exception",
            "java.lang.IllegalStateException",
            "second failure",
            1,
            T0.plusSeconds(10),
            Optional.empty(),
            0);
    DeadLetter reopened = unit.run(() -> store.upsert(again));

    assertThat(reopened.id()).as("the same row").isEqualTo(stored.id());
    assertThat(reopened.open()).isTrue();
    assertThat(unit.run(() -> store.errors(stored.id())))
        .hasValue(
            List.of(
                new DeadLetterError(
                    T0, 3, "invalid", "java.lang.IllegalArgumentException", "first failure"),
                new DeadLetterError(
                    T0.plusSeconds(10),
                    1,
                    "exception",
                    "java.lang.IllegalStateException",
                    "second failure")));
    assertThat(unit.run(() -> store.errors(UUID.randomUUID()))).isEmpty();
  }
}
