package dev.bothy.sync;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a worker consumer stands.
 *
 * @param name the consumer
 * @param lastSeq the last number its rounds processed
 * @param headSeq the head of the log when read
 * @param oldestPendingAt when the oldest event after {@code lastSeq} occurred; empty at the head
 * @param updatedAt when its cursor last moved (or was created)
 */
public record ConsumerState(
    ConsumerName name,
    long lastSeq,
    long headSeq,
    Optional<Instant> oldestPendingAt,
    Instant updatedAt) {
  /** Checks the fields. */
  public ConsumerState {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(oldestPendingAt, "oldestPendingAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }

  /**
   * The events it has not processed.
   *
   * @return {@code headSeq - lastSeq}, floored at zero (a cursor ahead of a restored head)
   */
  public long lag() {
    return Math.max(0, headSeq - lastSeq);
  }
}
