package dev.bothy.api.app;

import java.time.Instant;
import java.util.Optional;

/** The store of {@code api_idempotency_keys}; every method runs in the caller's unit of work. */
public interface IdempotencyRepository {

  /**
   * Finds the stored response of a key that is still within its retention.
   *
   * @param tokenName the token
   * @param key the key
   * @param notBefore the oldest creation time still retained
   * @return the response, or empty
   */
  Optional<StoredResponse> find(String tokenName, String key, Instant notBefore);

  /**
   * Deletes the row of a key when it is older than the retention, so the key can be used again.
   *
   * @param tokenName the token
   * @param key the key
   * @param before rows created before this go
   */
  void deleteExpired(String tokenName, String key, Instant before);

  /**
   * Inserts a response.
   *
   * @param response the response
   * @throws dev.bothy.kernel.BothyException {@code conflict} (when the unit ends) if another unit
   *     stored the same key first
   */
  void insert(StoredResponse response);

  /**
   * Deletes at most {@code limit} rows created before a time.
   *
   * @param before the cut-off
   * @param limit the most rows to delete
   * @return how many were deleted
   */
  int deleteOlderThan(Instant before, int limit);
}
