package dev.bothy.webhooks;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A position in a subscription's attempt log, which runs newest first by {@code (attempted_at,
 * id)}: the key of the last attempt of a page, from which the next page goes on.
 *
 * @param attemptedAt the attempt's {@link Attempt#attemptedAt()}
 * @param id its {@link Attempt#id()}, which breaks ties between equal times
 */
public record AttemptKey(Instant attemptedAt, UUID id) {
  /** Checks that no component is null. */
  public AttemptKey {
    Objects.requireNonNull(attemptedAt, "attemptedAt");
    Objects.requireNonNull(id, "id");
  }

  /**
   * Returns the key of an attempt.
   *
   * @param attempt the attempt
   * @return its key
   */
  public static AttemptKey of(Attempt attempt) {
    return new AttemptKey(attempt.attemptedAt(), attempt.id());
  }
}
