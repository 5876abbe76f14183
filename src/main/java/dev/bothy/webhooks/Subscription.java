package dev.bothy.webhooks;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A webhook subscription as operators see it; its secrets are never part of it.
 *
 * @param id the subscription's id (UUIDv7)
 * @param url the target, {@code https} unless {@code webhooks.allowPlainHttp}
 * @param eventTypes the event types delivered, at least one
 * @param ordered whether events are delivered one at a time in {@code seq} order
 * @param rateLimit the most delivery attempts per second
 * @param state active or disabled
 * @param disabledReason why it is disabled; empty when active
 * @param lastDeliveredSeq the highest number delivered with a 2xx answer, 0 before the first
 * @param heldSeq for an ordered subscription, the number in flight (a failing one holds the later
 *     ones); empty when none is
 * @param failingSince the first failure since the last success; empty while deliveries succeed
 * @param previousSecretExpiresAt when the secret replaced by the last rotation stops signing; empty
 *     when only one secret signs
 * @param createdAt when it was created
 * @param updatedAt when it last changed
 */
public record Subscription(
    UUID id,
    String url,
    List<String> eventTypes,
    boolean ordered,
    int rateLimit,
    SubscriptionState state,
    Optional<DisabledReason> disabledReason,
    long lastDeliveredSeq,
    OptionalLong heldSeq,
    Optional<Instant> failingSince,
    Optional<Instant> previousSecretExpiresAt,
    Instant createdAt,
    Instant updatedAt) {
  /** Checks that no component is null and copies the list. */
  public Subscription {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(url, "url");
    eventTypes = List.copyOf(eventTypes);
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(disabledReason, "disabledReason");
    Objects.requireNonNull(heldSeq, "heldSeq");
    Objects.requireNonNull(failingSince, "failingSince");
    Objects.requireNonNull(previousSecretExpiresAt, "previousSecretExpiresAt");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }
}
