package dev.bothy.bus;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The operator's verbs on dead letters, behind {@code java -jar bothy.jar bus dead
 * list|show|replay}; the same on both transports.
 */
public interface DeadLetters {
  /**
   * Lists dead letters, newest first.
   *
   * @param includeReplayed whether replayed ones are listed too
   * @param limit at most this many, 1 or more
   * @return the dead letters
   */
  List<DeadLetter> list(boolean includeReplayed, int limit);

  /**
   * Lists one page of dead letters, newest first by {@code (dead_at, id)}, starting after a key:
   * the database reads only the page. A dead letter that dies again while an operator pages moves
   * to the front, so a page may show it twice or not at all; a page never skips one that did not.
   *
   * @param includeReplayed whether replayed ones are listed too
   * @param before the key of the previous page's last dead letter, empty for the first page
   * @param limit at most this many, 1 or more
   * @return the dead letters
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a limit below 1
   */
  List<DeadLetter> page(boolean includeReplayed, Optional<DeadLetterKey> before, int limit);

  /**
   * Counts dead letters, reading at most {@code cap} rows: the answer is exact below the cap and
   * {@code cap} at or above it.
   *
   * @param includeReplayed whether replayed ones are counted too
   * @param cap the most rows read, 1 or more
   * @return the count, at most {@code cap}
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a cap below 1
   */
  long countUpTo(boolean includeReplayed, int cap);

  /**
   * Returns a dead letter's error history: every death of its handler and event pair, oldest first;
   * the last entry is the failure {@link DeadLetter} holds.
   *
   * @param id its id
   * @return the deaths, at least one
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id
   */
  List<DeadLetterError> errors(UUID id);

  /**
   * Shows one dead letter.
   *
   * @param id its id
   * @return the dead letter
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id
   */
  DeadLetter show(UUID id);

  /**
   * Replays a dead letter: marks it replayed and, in the same unit of work, inserts one {@code
   * bus.dispatch} job that runs its handler for its event again through the same dedupe rules (a
   * delivery row written since makes it a no-op) and the same verdicts (it may die again, which
   * opens the same dead letter again).
   *
   * @param id its id
   * @return the dead letter as replayed
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown id; {@code conflict}
   *     when it was replayed and has not died again since
   */
  DeadLetter replay(UUID id);
}
