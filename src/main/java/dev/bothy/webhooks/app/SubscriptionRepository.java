package dev.bothy.webhooks.app;

import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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
   * Reads several subscriptions with one statement, without locking them: the batch of deliveries
   * prepared in one unit (D-WB-1).
   *
   * @param ids their ids
   * @return the ones that exist, by id
   */
  Map<UUID, StoredSubscription> findAll(Collection<UUID> ids);

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
   * Reads and locks ({@code FOR KEY SHARE}: rounds of the consumer do not wait for each other, nor
   * for the rate claims and recorded successes of deliveries, but for every {@link #lock}) every
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
   * Records a failure: starts the failure streak at {@code now} unless one runs; a streak that
   * starts is a change of the subscription ({@code updated_at}), one that goes on is not.
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
   * Claims up to {@code wanted} attempts of the subscription's rate limit in its current one-second
   * window, counted in its row: a window that ended (or starts after {@code now}) is replaced by
   * one starting at {@code now}. Every claim adds {@code wanted} to the window's count, so all
   * processes together are granted at most {@code limit} attempts per window. Locks the row until
   * the unit ends; one statement.
   *
   * @param id its id
   * @param now the time of the claim
   * @param limit attempts per window
   * @param wanted attempts asked for, at least 1
   * @return the window and how many attempts were granted (0 when it is full), or empty when the
   *     subscription is gone
   */
  Optional<RateClaim> claimRateSlots(UUID id, Instant now, int limit, int wanted);

  /**
   * What a claim on a rate window got.
   *
   * @param windowStart when the window started; it ends one second later
   * @param granted attempts granted to the caller, from 0 to the number asked for
   */
  record RateClaim(Instant windowStart, int granted) {}

  /**
   * Locks the rows of the given subscriptions that exist, in id order (so two units that lock
   * several never wait for each other in a circle), until the unit ends.
   *
   * @param ids the subscriptions
   * @return the ids that exist
   */
  Set<UUID> lockAll(Collection<UUID> ids);

  /**
   * Records successes of several subscriptions in one statement: ends each one's failure streak and
   * raises its last delivered number to the given one when it is higher. The caller locked the rows
   * with {@link #lockAll}.
   *
   * @param highest the highest delivered number per subscription
   * @param now the update time
   */
  void deliveredAll(Map<UUID, Long> highest, Instant now);

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
