package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.webhooks.WebhooksModule;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The {@code webhooks} section: outgoing webhooks. */
@Doc("Outgoing webhooks: network rules, timeouts, retries, rate limits and retention.")
public class WebhooksConfig {
  /** Default of {@code webhooks.requestTimeout}. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.seconds(15);

  /** Default of {@code webhooks.jobTimeoutMargin}. */
  public static final Duration DEFAULT_JOB_TIMEOUT_MARGIN = Duration.seconds(30);

  /** Default of {@code webhooks.maxResponseBodyChars}. */
  public static final int DEFAULT_MAX_RESPONSE_BODY_CHARS = 1024;

  /** Upper bound of {@code webhooks.maxResponseBodyChars}: the excerpt is for diagnosis only. */
  public static final int MAX_RESPONSE_BODY_CHARS_LIMIT = 64 * 1024;

  /** Default of {@code webhooks.retryAfterCap}. */
  public static final Duration DEFAULT_RETRY_AFTER_CAP = Duration.hours(1);

  /** Default of {@code webhooks.disableAfter}. */
  public static final Duration DEFAULT_DISABLE_AFTER = Duration.days(5);

  /** Default of {@code webhooks.attemptRetention}. */
  public static final Duration DEFAULT_ATTEMPT_RETENTION = Duration.days(14);

  /** Default of {@code webhooks.attemptRetentionInterval}. */
  public static final Duration DEFAULT_ATTEMPT_RETENTION_INTERVAL = Duration.hours(1);

  /** Default of {@code webhooks.defaultRateLimit}. */
  public static final int DEFAULT_RATE_LIMIT = 50;

  /** Default of {@code webhooks.maxRateLimit}. */
  public static final int DEFAULT_MAX_RATE_LIMIT = 1000;

  /** Upper bound of {@code webhooks.maxRateLimit}. */
  public static final int MAX_RATE_LIMIT_LIMIT = 100_000;

  /** Default of {@code webhooks.rateLimitClaim}. */
  public static final int DEFAULT_RATE_LIMIT_CLAIM = 20;

  /** Default of {@code webhooks.maxUrlLength}. */
  public static final int DEFAULT_MAX_URL_LENGTH = 2048;

  /** Default of {@code webhooks.maxEventTypes}. */
  public static final int DEFAULT_MAX_EVENT_TYPES = 50;

  /**
   * Default of {@code webhooks.deliveryLatencyAlertAfter}; the alert BothyWebhookDeliveryLatency
   * holds it as its number (ObservabilityFilesTest keeps the two equal).
   */
  public static final Duration DEFAULT_DELIVERY_LATENCY_ALERT_AFTER = Duration.minutes(10);

  /**
   * Upper bound of {@code webhooks.maxConnections} and {@code webhooks.maxConnectionsPerTarget}.
   */
  public static final int MAX_CONNECTIONS_LIMIT = 10_000;

  /** Default of {@code webhooks.connectionWait}. */
  public static final Duration DEFAULT_CONNECTION_WAIT =
      Duration.milliseconds(WebhooksModule.DEFAULT_CONNECTION_WAIT.toMillis());

  /** Default of {@code webhooks.secretRotationWindow}. */
  public static final Duration DEFAULT_SECRET_ROTATION_WINDOW = Duration.hours(24);

  @Doc(
      "CIDR blocks a webhook target may resolve into although they are private, loopback,"
          + " link-local, CGNAT, unique-local, multicast or documentation ranges; empty refuses"
          + " all of them.")
  @NotNull
  @JsonProperty
  private List<String> allowedNetworks = new ArrayList<>();

  @Doc("Whether webhook targets may use plain http; otherwise https only.")
  @JsonProperty
  private boolean allowPlainHttp;

  @Doc(
      "Longest time of one delivery request, from connecting to the last byte of the answer;"
          + " past it the attempt fails as a timeout.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

  @Doc(
      "What a delivery job may take beyond webhooks.requestTimeout for its reads and writes;"
          + " their sum must stay below jobs.rescueAfter.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration jobTimeoutMargin = DEFAULT_JOB_TIMEOUT_MARGIN;

  @Doc("Characters of a receiver's answer kept with each attempt, for diagnosis.")
  @Min(0)
  @Max(MAX_RESPONSE_BODY_CHARS_LIMIT)
  @JsonProperty
  private int maxResponseBodyChars = DEFAULT_MAX_RESPONSE_BODY_CHARS;

  @Doc(
      "Longest Retry-After of a 429 or 503 answer that is honoured; a longer one waits this"
          + " long.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration retryAfterCap = DEFAULT_RETRY_AFTER_CAP;

  @Doc(
      "How long deliveries of a subscription may fail without a single success before it is"
          + " disabled with the reason failing; longer than the retry schedule's day and more.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration disableAfter = DEFAULT_DISABLE_AFTER;

  @Doc("How long delivery attempts are kept; older ones are deleted by a periodic job.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration attemptRetention = DEFAULT_ATTEMPT_RETENTION;

  @Doc("How often a worker or all process deletes the attempts past webhooks.attemptRetention.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration attemptRetentionInterval = DEFAULT_ATTEMPT_RETENTION_INTERVAL;

  @Doc("Delivery attempts per second of a subscription created without a rate_limit.")
  @Min(1)
  @Max(MAX_RATE_LIMIT_LIMIT)
  @JsonProperty
  private int defaultRateLimit = DEFAULT_RATE_LIMIT;

  @Doc("Highest rate_limit a subscription may ask for, in attempts per second.")
  @Min(1)
  @Max(MAX_RATE_LIMIT_LIMIT)
  @JsonProperty
  private int maxRateLimit = DEFAULT_MAX_RATE_LIMIT;

  @Doc(
      "Attempts of a subscription's one-second rate window a worker process claims from the"
          + " subscription's row at once and hands out from memory; every process together still"
          + " sends at most the rate_limit per window, and claimed attempts a process leaves"
          + " unused lapse with the window.")
  @Min(1)
  @Max(MAX_RATE_LIMIT_LIMIT)
  @JsonProperty
  private int rateLimitClaim = DEFAULT_RATE_LIMIT_CLAIM;

  @Doc("Longest target URL of a subscription, in characters.")
  @Min(16)
  @Max(65_536)
  @JsonProperty
  private int maxUrlLength = DEFAULT_MAX_URL_LENGTH;

  @Doc("Most event types one subscription may name.")
  @Min(1)
  @Max(10_000)
  @JsonProperty
  private int maxEventTypes = DEFAULT_MAX_EVENT_TYPES;

  @Doc(
      "How long the secret a rotation replaced keeps signing beside the new one, so receivers"
          + " switch without losing a delivery.")
  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration secretRotationWindow = DEFAULT_SECRET_ROTATION_WINDOW;

  @Doc(
      "Most open connections to all webhook receivers together; a delivery beyond it waits for"
          + " one up to webhooks.connectionWait.")
  @Min(1)
  @Max(MAX_CONNECTIONS_LIMIT)
  @JsonProperty
  private int maxConnections = WebhooksModule.DEFAULT_MAX_CONNECTIONS;

  @Doc(
      "Most open connections, and so requests at once, to one webhook receiver (scheme, host,"
          + " port and address), whatever the webhooks queue's workers; a delivery beyond it waits"
          + " for one up to webhooks.connectionWait and is then snoozed without an attempt.")
  @Min(1)
  @Max(MAX_CONNECTIONS_LIMIT)
  @JsonProperty
  private int maxConnectionsPerTarget = WebhooksModule.DEFAULT_MAX_CONNECTIONS_PER_TARGET;

  @Doc(
      "How long a delivery waits for a free connection to its receiver when all it may have"
          + " (webhooks.maxConnectionsPerTarget, webhooks.maxConnections) are busy; past it the"
          + " job is snoozed for as long (plus jitter), without an attempt, and its worker serves other"
          + " receivers. Shorter than webhooks.requestTimeout.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration connectionWait = DEFAULT_CONNECTION_WAIT;

  @Doc(
      "The delivery latency (append to 2xx) whose 0.99 quantile fires the alert"
          + " BothyWebhookDeliveryLatency; the shipped rule holds the default, so a change here"
          + " needs the same change in infra/observability/prometheus/rules/bothy-alerts.yaml.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration deliveryLatencyAlertAfter = DEFAULT_DELIVERY_LATENCY_ALERT_AFTER;

  /**
   * Returns {@code webhooks.deliveryLatencyAlertAfter}.
   *
   * @return the threshold
   */
  public Duration deliveryLatencyAlertAfter() {
    return deliveryLatencyAlertAfter;
  }

  /**
   * Returns {@code webhooks.allowedNetworks}.
   *
   * @return the CIDR blocks as written
   */
  public List<String> allowedNetworks() {
    return allowedNetworks;
  }

  /**
   * Returns {@code webhooks.requestTimeout}.
   *
   * @return the timeout
   */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * Returns {@code webhooks.jobTimeoutMargin}.
   *
   * @return the margin
   */
  public Duration jobTimeoutMargin() {
    return jobTimeoutMargin;
  }

  /**
   * Returns {@code webhooks.retryAfterCap}.
   *
   * @return the cap
   */
  public Duration retryAfterCap() {
    return retryAfterCap;
  }

  /**
   * Returns {@code webhooks.disableAfter}.
   *
   * @return the streak
   */
  public Duration disableAfter() {
    return disableAfter;
  }

  /**
   * Returns {@code webhooks.defaultRateLimit}.
   *
   * @return attempts per second
   */
  public int defaultRateLimit() {
    return defaultRateLimit;
  }

  /**
   * Returns {@code webhooks.maxRateLimit}.
   *
   * @return attempts per second
   */
  public int maxRateLimit() {
    return maxRateLimit;
  }

  /**
   * Returns {@code webhooks.rateLimitClaim}.
   *
   * @return attempts claimed at once
   */
  public int rateLimitClaim() {
    return rateLimitClaim;
  }

  /**
   * Returns {@code webhooks.maxConnections}.
   *
   * @return open connections to all receivers
   */
  public int maxConnections() {
    return maxConnections;
  }

  /**
   * Returns {@code webhooks.maxConnectionsPerTarget}.
   *
   * @return open connections to one receiver
   */
  public int maxConnectionsPerTarget() {
    return maxConnectionsPerTarget;
  }

  /**
   * Returns {@code webhooks.connectionWait}.
   *
   * @return the longest wait for a free connection to a receiver
   */
  public Duration connectionWait() {
    return connectionWait;
  }

  /**
   * Maps this section, with the keys of other sections the module reads, to its settings.
   *
   * @param consumer the {@code consumer} section
   * @param jobs the {@code jobs} section
   * @return the webhooks module's settings
   */
  public WebhooksModule.Settings settings(ConsumerConfig consumer, JobsConfig jobs) {
    return new WebhooksModule.Settings(
        allowedNetworks,
        allowPlainHttp,
        requestTimeout.toJavaDuration(),
        jobTimeoutMargin.toJavaDuration(),
        maxResponseBodyChars,
        retryAfterCap.toJavaDuration(),
        disableAfter.toJavaDuration(),
        attemptRetention.toJavaDuration(),
        attemptRetentionInterval.toJavaDuration(),
        defaultRateLimit,
        maxRateLimit,
        rateLimitClaim,
        maxUrlLength,
        maxEventTypes,
        secretRotationWindow.toJavaDuration(),
        maxConnections,
        maxConnectionsPerTarget,
        connectionWait.toJavaDuration(),
        consumer.batchSize(),
        jobs.cleanerBatchSize());
  }
}
