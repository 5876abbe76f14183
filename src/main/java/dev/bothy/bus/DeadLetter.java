package dev.bothy.bus;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A dead letter: one bus handler and one event whose dispatch ended without success, because the
 * handler's failure was not retryable or its last allowed delivery failed (ADR 0025).
 *
 * @param id the dead letter's id, what {@code bus dead show} and {@code replay} take
 * @param handler the handler's name
 * @param durable the consumer's durable name
 * @param eventId the event's id
 * @param eventSeq the event's number
 * @param eventType the event type's name
 * @param errorKind the error kind's code, {@code exception} for a plain exception, {@code error}
 *     for a {@link java.lang.Error}
 * @param errorClass the failure's class name
 * @param errorMessage the failure's message, cut at {@code jobs.errorMessageMaxChars}
 * @param deliveries the deliveries made, the failed one included
 * @param deadAt when the last failure happened
 * @param replayedAt when an operator last replayed it, unless it died again since
 * @param replays how many times it was replayed
 */
public record DeadLetter(
    UUID id,
    String handler,
    String durable,
    UUID eventId,
    long eventSeq,
    String eventType,
    String errorKind,
    String errorClass,
    String errorMessage,
    int deliveries,
    Instant deadAt,
    Optional<Instant> replayedAt,
    int replays) {
  /** Checks that no component is null. */
  public DeadLetter {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(durable, "durable");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(errorKind, "errorKind");
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(errorMessage, "errorMessage");
    Objects.requireNonNull(deadAt, "deadAt");
    Objects.requireNonNull(replayedAt, "replayedAt");
  }

  /**
   * Tells whether the dead letter waits for an operator: not replayed since it last died. While
   * open, a redelivery of its event skips its handler.
   *
   * @return true when {@link #replayedAt()} is empty
   */
  public boolean open() {
    return replayedAt.isEmpty();
  }
}
