package dev.bothy.webhooks;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * One recorded delivery attempt: a row of {@code webhook_attempts}.
 *
 * @param id the attempt's id (UUIDv7)
 * @param subscriptionId the subscription
 * @param eventSeq the event's number
 * @param eventId the event's id, sent as {@code webhook-id}
 * @param attempt the delivery job's attempt, from 1
 * @param attemptedAt when the request was sent
 * @param duration from the send to the answer or the error
 * @param outcome what it ended with
 * @param responseStatus the HTTP status, when an answer came
 * @param responseBody the answer's body, cut at {@code webhooks.maxResponseBodyChars}
 * @param errorKind the kind of error without an answer, such as {@code timeout}
 */
public record Attempt(
    UUID id,
    UUID subscriptionId,
    long eventSeq,
    UUID eventId,
    int attempt,
    Instant attemptedAt,
    Duration duration,
    DeliveryOutcome outcome,
    OptionalInt responseStatus,
    Optional<String> responseBody,
    Optional<String> errorKind) {
  /** Checks that no component is null. */
  public Attempt {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(subscriptionId, "subscriptionId");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(attemptedAt, "attemptedAt");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(responseStatus, "responseStatus");
    Objects.requireNonNull(responseBody, "responseBody");
    Objects.requireNonNull(errorKind, "errorKind");
  }
}
