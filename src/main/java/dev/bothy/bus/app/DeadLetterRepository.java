package dev.bothy.bus.app;

import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DeadLetterError;
import dev.bothy.bus.DeadLetterKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The store of {@code bus_dead_letters}, in the current unit of work. */
public interface DeadLetterRepository {
  /**
   * Writes the dead letter of a handler and an event: a new row, or, when the pair died before (and
   * was replayed), the same row with the new failure, open again. Either way the failure is added
   * to the end of the row's error history.
   *
   * @param letter the dead letter; its id is used only for a new row
   * @return the stored dead letter
   */
  DeadLetter upsert(DeadLetter letter);

  /**
   * Tells whether the pair has an open dead letter (not replayed since it died).
   *
   * @param handler the handler's name
   * @param eventId the event's id
   * @return true when one is open
   */
  boolean openFor(String handler, UUID eventId);

  /**
   * Finds a dead letter by id, locking its row for the rest of the unit.
   *
   * @param id the id
   * @return the dead letter, or empty
   */
  Optional<DeadLetter> lock(UUID id);

  /**
   * Finds a dead letter by id.
   *
   * @param id the id
   * @return the dead letter, or empty
   */
  Optional<DeadLetter> find(UUID id);

  /**
   * Lists dead letters, newest first.
   *
   * @param includeReplayed whether replayed ones are included
   * @param limit the most rows
   * @return the dead letters
   */
  List<DeadLetter> list(boolean includeReplayed, int limit);

  /**
   * Lists dead letters newest first by {@code (dead_at, id)}, below a key.
   *
   * @param includeReplayed whether replayed ones are included
   * @param before the key to start below, or empty for the newest
   * @param limit the most rows
   * @return the dead letters
   */
  List<DeadLetter> page(boolean includeReplayed, Optional<DeadLetterKey> before, int limit);

  /**
   * Counts dead letters with {@code count(*)} over a {@code LIMIT cap} subquery.
   *
   * @param includeReplayed whether replayed ones are counted
   * @param cap the most rows read
   * @return the count, at most {@code cap}
   */
  long countUpTo(boolean includeReplayed, int cap);

  /**
   * Returns a dead letter's error history, oldest first.
   *
   * @param id the id
   * @return the deaths, or empty when no such dead letter exists
   */
  Optional<List<DeadLetterError>> errors(UUID id);

  /**
   * Marks a dead letter replayed.
   *
   * @param id the id
   * @param at the replay's time
   */
  void markReplayed(UUID id, Instant at);

  /**
   * Deletes up to {@code limit} dead letters that died before {@code before}.
   *
   * @param before the horizon
   * @param limit the most rows
   * @return the rows deleted
   */
  int deleteOlderThan(Instant before, int limit);
}
