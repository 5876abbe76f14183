package dev.bothy.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;

/**
 * The JSON shapes of {@code /v1/webhooks/subscriptions}: snake_case members, ids as UUID strings,
 * times as ISO-8601 UTC strings. The request shapes document the routes; the bodies are read by
 * {@link WebhookRequestReader}. No shape but {@link CreatedOut} carries a secret.
 */
public final class WebhooksJson {
  private WebhooksJson() {}

  /**
   * The body of {@code POST /v1/webhooks/subscriptions}.
   *
   * @param url the target
   * @param eventTypes the event types to deliver
   * @param ordered one delivery at a time in log order
   * @param rateLimit attempts per second
   */
  @Schema(name = "WebhookSubscriptionCreate")
  public record CreateIn(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "https://example.com/hooks")
          String url,
      @JsonProperty("event_types")
          @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "[\"settings.updated\"]")
          List<String> eventTypes,
      @Schema(description = "Deliver one event at a time, in log order; default false")
          Boolean ordered,
      @JsonProperty("rate_limit")
          @Schema(
              description = "Attempts per second; default webhooks.defaultRateLimit",
              minimum = "1")
          Integer rateLimit) {}

  /**
   * The body of {@code PATCH /v1/webhooks/subscriptions/{id}}: each member given replaces the
   * stored one.
   *
   * @param url the target
   * @param eventTypes the event types
   * @param rateLimit attempts per second
   */
  @Schema(name = "WebhookSubscriptionUpdate")
  public record UpdateIn(
      String url,
      @JsonProperty("event_types") List<String> eventTypes,
      @JsonProperty("rate_limit") @Schema(minimum = "1") Integer rateLimit) {}

  /**
   * The body of {@code POST /v1/webhooks/subscriptions/{id}/recover}.
   *
   * @param fromSeq the first number to deliver again
   */
  @Schema(name = "WebhookRecover")
  public record RecoverIn(
      @JsonProperty("from_seq") @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1")
          long fromSeq) {}

  /**
   * The body of {@code POST /v1/webhooks/subscriptions/{id}/resend}.
   *
   * @param seq the event's number
   */
  @Schema(name = "WebhookResend")
  public record ResendIn(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1") long seq) {}

  /**
   * A subscription, without its secret.
   *
   * @param id its id
   * @param url the target
   * @param eventTypes the event types
   * @param ordered one delivery at a time in log order
   * @param rateLimit attempts per second
   * @param state {@code active} or {@code disabled}
   * @param disabledReason {@code gap}, {@code failing}, {@code gone} or {@code manual}; null when
   *     active
   * @param lastDeliveredSeq the highest number delivered
   * @param heldSeq the number an ordered subscription holds in flight, or null
   * @param failingSince the first failure since the last success, or null
   * @param previousSecretExpiresAt when the secret before the last rotation stops signing, or null
   * @param createdAt when it was created
   * @param updatedAt when it last changed
   */
  @Schema(name = "WebhookSubscription")
  @JsonPropertyOrder({
    "id",
    "url",
    "event_types",
    "ordered",
    "rate_limit",
    "state",
    "disabled_reason",
    "last_delivered_seq",
    "held_seq",
    "failing_since",
    "previous_secret_expires_at",
    "created_at",
    "updated_at"
  })
  public record SubscriptionOut(
      @Schema(format = "uuid") String id,
      String url,
      @JsonProperty("event_types") List<String> eventTypes,
      boolean ordered,
      @JsonProperty("rate_limit") int rateLimit,
      @Schema(allowableValues = {"active", "disabled"}) String state,
      @JsonProperty("disabled_reason")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(
              nullable = true,
              allowableValues = {"gap", "failing", "gone", "manual"})
          String disabledReason,
      @JsonProperty("last_delivered_seq") long lastDeliveredSeq,
      @JsonProperty("held_seq") @JsonInclude(JsonInclude.Include.ALWAYS) @Schema(nullable = true)
          Long heldSeq,
      @JsonProperty("failing_since")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true, format = "date-time")
          String failingSince,
      @JsonProperty("previous_secret_expires_at")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true, format = "date-time")
          String previousSecretExpiresAt,
      @JsonProperty("created_at") @Schema(format = "date-time") String createdAt,
      @JsonProperty("updated_at") @Schema(format = "date-time") String updatedAt) {

    /**
     * Shows a subscription.
     *
     * @param s the subscription
     * @return its JSON shape
     */
    public static SubscriptionOut of(Subscription s) {
      return new SubscriptionOut(
          s.id().toString(),
          s.url(),
          s.eventTypes(),
          s.ordered(),
          s.rateLimit(),
          s.state().code(),
          s.disabledReason().map(DisabledReason::code).orElse(null),
          s.lastDeliveredSeq(),
          s.heldSeq().isPresent() ? s.heldSeq().getAsLong() : null,
          s.failingSince().map(Instant::toString).orElse(null),
          s.previousSecretExpiresAt().map(Instant::toString).orElse(null),
          s.createdAt().toString(),
          s.updatedAt().toString());
    }
  }

  /**
   * A subscription with its new secret: the answer to a create and a rotation, the only time the
   * secret is shown.
   *
   * @param subscription the subscription
   * @param secret the signing secret, {@code whsec_} and base64
   */
  @Schema(name = "WebhookSubscriptionWithSecret")
  public record CreatedOut(
      SubscriptionOut subscription,
      @Schema(description = "The signing secret; shown only in this answer", example = "whsec_...")
          String secret) {
    /** Leaves the secret out, so a logged value never shows it. */
    @Override
    public String toString() {
      return "CreatedOut[" + subscription.id() + "]";
    }
  }

  /**
   * A page of subscriptions.
   *
   * @param subscriptions in id order
   * @param nextAfter the {@code after} of the next page, or null after the last
   */
  @Schema(name = "WebhookSubscriptions")
  public record SubscriptionsOut(
      List<SubscriptionOut> subscriptions,
      @JsonProperty("next_after")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true, format = "uuid")
          String nextAfter) {}

  /**
   * One delivery attempt.
   *
   * @param id its id
   * @param eventSeq the event's number
   * @param eventId the event's id, sent as webhook-id
   * @param attempt the attempt of its job, from 1
   * @param attemptedAt when it was sent
   * @param durationMs how long it took
   * @param outcome {@code delivered}, {@code gone}, {@code retry_after} or {@code failed}
   * @param responseStatus the HTTP status, or null without an answer
   * @param responseBody the start of the answer, or null
   * @param errorKind what failed without an answer (such as {@code timeout}), or null
   */
  @Schema(name = "WebhookAttempt")
  @JsonPropertyOrder({
    "id",
    "event_seq",
    "event_id",
    "attempt",
    "attempted_at",
    "duration_ms",
    "outcome",
    "response_status",
    "response_body",
    "error_kind"
  })
  public record AttemptOut(
      @Schema(format = "uuid") String id,
      @JsonProperty("event_seq") long eventSeq,
      @JsonProperty("event_id") @Schema(format = "uuid") String eventId,
      int attempt,
      @JsonProperty("attempted_at") @Schema(format = "date-time") String attemptedAt,
      @JsonProperty("duration_ms") long durationMs,
      @Schema(allowableValues = {"delivered", "gone", "retry_after", "failed"}) String outcome,
      @JsonProperty("response_status")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true)
          Integer responseStatus,
      @JsonProperty("response_body")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(nullable = true)
          String responseBody,
      @JsonProperty("error_kind") @JsonInclude(JsonInclude.Include.ALWAYS) @Schema(nullable = true)
          String errorKind) {

    /**
     * Shows an attempt.
     *
     * @param a the attempt
     * @return its JSON shape
     */
    public static AttemptOut of(Attempt a) {
      return new AttemptOut(
          a.id().toString(),
          a.eventSeq(),
          a.eventId().toString(),
          a.attempt(),
          a.attemptedAt().toString(),
          a.duration().toMillis(),
          a.outcome().code(),
          a.responseStatus().isPresent() ? a.responseStatus().getAsInt() : null,
          a.responseBody().orElse(null),
          a.errorKind().orElse(null));
    }
  }

  /**
   * A page of a subscription's attempts, newest first.
   *
   * @param attempts the attempts
   * @param nextBefore the {@code before} of the next page, or null after the last
   */
  @Schema(name = "WebhookAttempts")
  public record AttemptsOut(
      List<AttemptOut> attempts,
      @JsonProperty("next_before")
          @JsonInclude(JsonInclude.Include.ALWAYS)
          @Schema(
              nullable = true,
              description = "The before of the next page, or null after the last",
              example = "2026-12-06T10:15:30.123456Z_01a24daa-956e-77c0-8e30-3a94f03f8a0e")
          String nextBefore) {}
}
