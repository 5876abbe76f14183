package dev.bothy.webhooks.app;

import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/** The store of {@code webhook_subscriptions}; every method runs in the caller's unit of work. */
public interface SubscriptionRepository {
  /**
   * Inserts a new subscription.
   *
   * @param subscription the subscription with its secret
   */
  void insert(StoredSubscription subscription);

  /**
   * Reads a subscription.
   *
   * @param id its id
   * @return the subscription, or empty
   */
  Optional<StoredSubscription> find(UUID id);

  /**
   * Reads a subscription and locks its row until the unit ends, so a consumer round, a delivery's
   * outcome and an operator's verb on it happen one after the other.
   *
   * @param id its id
   * @return the subscription, or empty
   */
  Optional<StoredSubscription> lock(UUID id);

  /**
   * Lists subscriptions in id order.
   *
   * @param after the last id of the previous page
   * @param limit the most to return
   * @return the page
   */
  List<Subscription> list(Optional<UUID> after, int limit);

  /**
   * Reads and locks (shared: rounds of the consumer do not wait for each other's reads) every
   * subscription, active or not, whose event types hold {@code eventType}, in id order.
   *
   * @param eventType the event's type
   * @return the subscriptions
   */
  List<StoredSubscription> lockMatching(String eventType);

  /**
   * Replaces the fields an operator may change.
   *
   * @param id its id
   * @param url the URL
   * @param eventTypes the event types
   * @param rateLimit the rate limit
   * @param now the update time
   */
  void updateFields(UUID id, String url, List<String> eventTypes, int rateLimit, Instant now);

  /**
   * Disables a subscription, keeping its held number.
   *
   * @param id its id
   * @param reason why
   * @param now the update time
   */
  void disable(UUID id, DisabledReason reason, Instant now);

  /**
   * Makes a subscription active, clears its failure streak, raises its generation and sets its held
   * number and last delivered number.
   *
   * @param id its id
   * @param heldSeq the number in flight afterwards, for an ordered subscription
   * @param lastDeliveredSeq the last delivered number afterwards
   * @param now the update time
   * @return the new generation
   */
  int activate(UUID id, OptionalLong heldSeq, long lastDeliveredSeq, Instant now);

  /**
   * Sets the number in flight of an ordered subscription.
   *
   * @param id its id
   * @param heldSeq the number, or empty when none is in flight
   * @param now the update time
   */
  void hold(UUID id, OptionalLong heldSeq, Instant now);

  /**
   * Records a success: ends the failure streak and raises the last delivered number to {@code seq}
   * when it is higher.
   *
   * @param id its id
   * @param seq the delivered number
   * @param now the update time
   */
  void delivered(UUID id, long seq, Instant now);

  /**
   * Records a failure: starts the failure streak at {@code now} unless one runs.
   *
   * @param id its id
   * @param now the time of the failure
   * @return when the streak started
   */
  Instant failed(UUID id, Instant now);

  /**
   * Replaces the secret, keeping the old one until {@code previousExpiresAt}.
   *
   * @param id its id
   * @param secret the new secret
   * @param previous the old secret
   * @param previousExpiresAt when the old secret stops signing
   * @param now the update time
   */
  void rotate(UUID id, String secret, String previous, Instant previousExpiresAt, Instant now);

  /**
   * Takes one attempt of the subscription's rate limit in the current one-second window.
   *
   * @param id its id
   * @param now the time of the attempt
   * @param limit attempts per window
   * @return empty when the attempt may go now, else when the window ends
   */
  Optional<Instant> takeRateSlot(UUID id, Instant now, int limit);

  /**
   * Deletes a subscription and its attempts.
   *
   * @param id its id
   * @return whether it existed
   */
  boolean delete(UUID id);

  /**
   * Counts subscriptions per state and reason, for the gauge.
   *
   * @return counts keyed by {@code active} or the reason's code
   */
  Map<String, Long> countByStateAndReason();

  /**
   * Lists the active subscriptions.
   *
   * @return them, in id order
   */
  List<Subscription> listActive();
}
