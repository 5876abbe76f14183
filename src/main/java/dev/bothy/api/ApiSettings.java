package dev.bothy.api;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The limits and tokens of the HTTP API, from the {@code api} configuration section.
 *
 * @param maxEventsPerRequest {@code api.maxEventsPerRequest}
 * @param maxRequestBytes {@code api.maxRequestBytes}
 * @param maxJsonDepth {@code api.maxJsonDepth}: the deepest nesting of a request body
 * @param maxJsonNameLength {@code api.maxJsonNameLength}: the longest member name of a request body
 * @param maxPageSize {@code api.maxPageSize}
 * @param defaultPageSize {@code api.defaultPageSize}
 * @param maxPayloadBytes {@code sync.maxPayloadBytes}, checked per event with a JSON pointer
 * @param idempotencyRetention {@code api.idempotencyRetention}
 * @param idempotencyCleanupInterval {@code api.idempotencyCleanupInterval}
 * @param cleanerBatchSize {@code jobs.cleanerBatchSize}: the most keys one cleaner run deletes
 * @param streamHeartbeat {@code api.streamHeartbeat}
 * @param maxStreams {@code api.maxStreams}
 * @param streamRetryAfter {@code api.streamRetryAfter}
 * @param streamFrames {@code sync.tailSubscriberBuffer}: the encoded events the streams share, as
 *     many as a live stream may lag behind the tail
 * @param tokens {@code api.tokens}
 */
public record ApiSettings(
    int maxEventsPerRequest,
    int maxRequestBytes,
    int maxJsonDepth,
    int maxJsonNameLength,
    int maxPageSize,
    int defaultPageSize,
    int maxPayloadBytes,
    Duration idempotencyRetention,
    Duration idempotencyCleanupInterval,
    int cleanerBatchSize,
    Duration streamHeartbeat,
    int maxStreams,
    Duration streamRetryAfter,
    int streamFrames,
    List<ApiToken> tokens) {
  /** Checks the fields. */
  public ApiSettings {
    Objects.requireNonNull(idempotencyRetention, "idempotencyRetention");
    Objects.requireNonNull(idempotencyCleanupInterval, "idempotencyCleanupInterval");
    Objects.requireNonNull(streamHeartbeat, "streamHeartbeat");
    Objects.requireNonNull(streamRetryAfter, "streamRetryAfter");
    tokens = List.copyOf(tokens);
    if (maxEventsPerRequest < 1
        || maxRequestBytes < 1
        || maxJsonDepth < 1
        || maxJsonNameLength < 1
        || maxPageSize < 1
        || maxStreams < 1
        || maxPayloadBytes < 1
        || cleanerBatchSize < 1
        || streamFrames < 1) {
      throw new IllegalArgumentException("the API limits are at least 1");
    }
    if (defaultPageSize < 1 || defaultPageSize > maxPageSize) {
      throw new IllegalArgumentException("api.defaultPageSize lies in 1..api.maxPageSize");
    }
  }
}
