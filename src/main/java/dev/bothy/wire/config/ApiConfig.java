package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.api.ApiSettings;
import dev.bothy.api.ApiToken;
import dev.bothy.api.Scope;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The {@code api} section: the HTTP API of the {@code api} and {@code all} roles. */
@Doc("The HTTP API of the api and all roles: limits, idempotency, streams and tokens.")
public class ApiConfig {
  /** Default of {@code api.maxEventsPerRequest}. */
  public static final int DEFAULT_MAX_EVENTS_PER_REQUEST = 1_000;

  /** Default of {@code api.maxRequestBytes}: 4 MiB. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;

  /**
   * Default of {@code api.maxJsonDepth}: the append body's own shape nests five deep, which leaves
   * room for payload records.
   */
  public static final int DEFAULT_MAX_JSON_DEPTH = 64;

  /** Default of {@code api.maxJsonNameLength}. */
  public static final int DEFAULT_MAX_JSON_NAME_LENGTH = 256;

  /** Default of {@code api.maxPageSize}. */
  public static final int DEFAULT_MAX_PAGE_SIZE = 1_000;

  /** Default of {@code api.defaultPageSize}. */
  public static final int DEFAULT_PAGE_SIZE = 100;

  /** Default of {@code api.idempotencyRetention}. */
  public static final Duration DEFAULT_IDEMPOTENCY_RETENTION = Duration.hours(24);

  /** Default of {@code api.idempotencyCleanupInterval}. */
  public static final Duration DEFAULT_IDEMPOTENCY_CLEANUP_INTERVAL = Duration.minutes(10);

  /** Default of {@code api.streamHeartbeat}. */
  public static final Duration DEFAULT_STREAM_HEARTBEAT = Duration.seconds(15);

  /** Default of {@code api.maxStreams}. */
  public static final int DEFAULT_MAX_STREAMS = 256;

  /** Default of {@code api.streamRetryAfter}. */
  public static final Duration DEFAULT_STREAM_RETRY_AFTER = Duration.seconds(5);

  @Doc("Most events one POST /v1/events may append; more is a 400 invalid_request.")
  @Min(1)
  @Max(100_000)
  @JsonProperty
  private int maxEventsPerRequest = DEFAULT_MAX_EVENTS_PER_REQUEST;

  @Doc("Largest request body in bytes; a larger one is a 413 payload_too_large, read no further.")
  @Min(1_024)
  @Max(256 * 1024 * 1024)
  @JsonProperty
  private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;

  @Doc(
      "Deepest nesting of arrays and objects in a request body; deeper is a 400 invalid_request"
          + " that names this key, before the body is read into memory as a tree.")
  @Min(8)
  @Max(1_000)
  @JsonProperty
  private int maxJsonDepth = DEFAULT_MAX_JSON_DEPTH;

  @Doc(
      "Longest member name, in characters, in a request body; longer is a 400 invalid_request"
          + " that names this key.")
  @Min(32)
  @Max(50_000)
  @JsonProperty
  private int maxJsonNameLength = DEFAULT_MAX_JSON_NAME_LENGTH;

  @Doc("Most events one GET /v1/events returns; a larger limit is lowered to it.")
  @Min(1)
  @Max(100_000)
  @JsonProperty
  private int maxPageSize = DEFAULT_MAX_PAGE_SIZE;

  @Doc("Events one GET /v1/events returns when the request names no limit.")
  @Min(1)
  @Max(100_000)
  @JsonProperty
  private int defaultPageSize = DEFAULT_PAGE_SIZE;

  @Doc(
      "How long the first response to an Idempotency-Key is kept and replayed; a retry after"
          + " it appends again. Must be shorter than sync.eventRetention.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration idempotencyRetention = DEFAULT_IDEMPOTENCY_RETENTION;

  @Doc("How often a worker deletes the idempotency keys older than api.idempotencyRetention.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration idempotencyCleanupInterval = DEFAULT_IDEMPOTENCY_CLEANUP_INTERVAL;

  @Doc(
      "How often an idle event stream sends a comment line, so proxies keep it open; a stream"
          + " whose client is gone fails that write and frees its api.maxStreams place, so a"
          + " vanished client holds one for about two of these at most.")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration streamHeartbeat = DEFAULT_STREAM_HEARTBEAT;

  @Doc("Most concurrent event streams per process; one more is a 503 too_many_streams.")
  @Min(1)
  @Max(100_000)
  @JsonProperty
  private int maxStreams = DEFAULT_MAX_STREAMS;

  @Doc("The Retry-After of a 503 too_many_streams.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration streamRetryAfter = DEFAULT_STREAM_RETRY_AFTER;

  @Doc(
      "The bearer tokens: each a name, the SHA-256 of the token in lower-case hex (never the"
          + " token; print it with the tokens hash command) and scopes out of events:append,"
          + " events:read, admin:read, admin:write (actions in the console), webhooks:admin,"
          + " system:write and system:read. No token: every request is a 401.")
  @Valid
  @NotNull
  @JsonProperty
  private List<TokenConfig> tokens = new ArrayList<>();

  /**
   * Returns {@code api.maxEventsPerRequest}.
   *
   * @return the limit
   */
  public int maxEventsPerRequest() {
    return maxEventsPerRequest;
  }

  /**
   * Returns {@code api.maxRequestBytes}.
   *
   * @return the limit
   */
  public int maxRequestBytes() {
    return maxRequestBytes;
  }

  /**
   * Returns {@code api.maxJsonDepth}.
   *
   * @return the limit
   */
  public int maxJsonDepth() {
    return maxJsonDepth;
  }

  /**
   * Returns {@code api.maxJsonNameLength}.
   *
   * @return the limit
   */
  public int maxJsonNameLength() {
    return maxJsonNameLength;
  }

  /**
   * Returns {@code api.maxPageSize}.
   *
   * @return the limit
   */
  public int maxPageSize() {
    return maxPageSize;
  }

  /**
   * Returns {@code api.defaultPageSize}.
   *
   * @return the size
   */
  public int defaultPageSize() {
    return defaultPageSize;
  }

  /**
   * Returns {@code api.idempotencyRetention}.
   *
   * @return the retention
   */
  public Duration idempotencyRetention() {
    return idempotencyRetention;
  }

  /**
   * Returns {@code api.idempotencyCleanupInterval}.
   *
   * @return the interval
   */
  public Duration idempotencyCleanupInterval() {
    return idempotencyCleanupInterval;
  }

  /**
   * Returns {@code api.streamHeartbeat}.
   *
   * @return the interval
   */
  public Duration streamHeartbeat() {
    return streamHeartbeat;
  }

  /**
   * Returns {@code api.maxStreams}.
   *
   * @return the limit
   */
  public int maxStreams() {
    return maxStreams;
  }

  /**
   * Returns {@code api.streamRetryAfter}.
   *
   * @return the wait
   */
  public Duration streamRetryAfter() {
    return streamRetryAfter;
  }

  /**
   * Returns {@code api.tokens}.
   *
   * @return the tokens
   */
  public List<TokenConfig> tokens() {
    return tokens;
  }

  /**
   * Maps this section, with the keys of other sections the API module reads, to its settings.
   *
   * @param sync the {@code sync} section
   * @param jobs the {@code jobs} section
   * @return the API module's settings
   */
  public ApiSettings settings(SyncConfig sync, JobsConfig jobs) {
    List<ApiToken> apiTokens = apiTokens();
    return new ApiSettings(
        maxEventsPerRequest,
        maxRequestBytes,
        maxJsonDepth,
        maxJsonNameLength,
        maxPageSize,
        defaultPageSize,
        sync.maxPayloadBytes(),
        idempotencyRetention.toJavaDuration(),
        idempotencyCleanupInterval.toJavaDuration(),
        jobs.cleanerBatchSize(),
        streamHeartbeat.toJavaDuration(),
        maxStreams,
        streamRetryAfter.toJavaDuration(),
        sync.tailSubscriberBuffer(),
        apiTokens);
  }

  /**
   * Maps {@code api.tokens} to the tokens the API and the console check.
   *
   * @return the tokens, known by their hashes
   */
  public List<ApiToken> apiTokens() {
    return tokens.stream()
        .map(
            t ->
                ApiToken.ofHex(
                    t.name(),
                    t.sha256(),
                    t.scopes().stream()
                        .map(code -> Scope.fromCode(code).orElseThrow())
                        .collect(Collectors.toSet())))
        .toList();
  }
}
