package dev.bothy.webhooks.app;

import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.AttemptKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/** The store of {@code webhook_attempts}; every method runs in the caller's unit of work. */
public interface AttemptRepository {
  /**
   * Records an attempt.
   *
   * @param attempt the attempt
   */
  void insert(Attempt attempt);

  /**
   * Records several attempts with one statement.
   *
   * @param attempts the attempts; none when empty
   */
  void insertAll(List<Attempt> attempts);

  /**
   * Lists a subscription's attempts newest first by {@code (attempted_at, id)}, below a key.
   *
   * @param subscriptionId the subscription
   * @param eventSeq only this event's, when given
   * @param before the key to start below, or empty for the newest
   * @param limit the most rows
   * @return the attempts
   */
  List<Attempt> list(
      UUID subscriptionId, OptionalLong eventSeq, Optional<AttemptKey> before, int limit);

  /**
   * Counts a subscription's attempts with {@code count(*)} over a {@code LIMIT cap} subquery.
   *
   * @param subscriptionId the subscription
   * @param cap the most rows read
   * @return the count, at most {@code cap}
   */
  long countUpTo(UUID subscriptionId, int cap);

  /**
   * Deletes up to {@code limit} attempts made before {@code before}.
   *
   * @param before the cut-off
   * @param limit the batch size
   * @return how many were deleted
   */
  int deleteOlderThan(Instant before, int limit);
}
