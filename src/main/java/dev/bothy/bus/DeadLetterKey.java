package dev.bothy.bus;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A position in the list of dead letters, which runs newest first by {@code (dead_at, id)}: the key
 * of the last dead letter of a page, from which the next page goes on.
 *
 * @param deadAt the dead letter's {@link DeadLetter#deadAt()}
 * @param id its {@link DeadLetter#id()}, which breaks ties between equal times
 */
public record DeadLetterKey(Instant deadAt, UUID id) {
  /** Checks that no component is null. */
  public DeadLetterKey {
    Objects.requireNonNull(deadAt, "deadAt");
    Objects.requireNonNull(id, "id");
  }

  /**
   * Returns the key of a dead letter.
   *
   * @param letter the dead letter
   * @return its key
   */
  public static DeadLetterKey of(DeadLetter letter) {
    return new DeadLetterKey(letter.deadAt(), letter.id());
  }
}
