package dev.bothy.bus;

import java.util.List;
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
