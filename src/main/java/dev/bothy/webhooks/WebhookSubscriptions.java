package dev.bothy.webhooks;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The operator's verbs on webhook subscriptions, as the HTTP routes under {@code
 * /v1/webhooks/subscriptions} offer them. Each runs its own unit of work.
 *
 * <p>Errors are {@link dev.bothy.kernel.BothyException}s: {@code not_found} for an unknown id,
 * {@code invalid} for bad input (the message names the field, never a secret), {@code conflict} for
 * a verb the subscription's state does not allow.
 */
public interface WebhookSubscriptions {
  /**
   * Creates an active subscription with a new secret. It receives the events committed after the
   * webhooks consumer passes this point.
   *
   * @param request the target, the event types, ordering and rate limit
   * @return the subscription and its secret, shown this once
   * @throws TargetNotAllowed for a scheme other than {@code https} (or {@code http} with {@code
   *     webhooks.allowPlainHttp}) or a host the network rules refuse ({@code
   *     webhooks.allowedNetworks}) or that does not resolve
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a malformed URL, an unknown event
   *     type or a rate limit outside 1 to {@code webhooks.maxRateLimit}
   */
  CreatedSubscription create(NewSubscription request);

  /**
   * Lists subscriptions in id order (creation order).
   *
   * @param after the last id of the previous page, empty for the first
   * @param limit the most to return, at least 1
   * @return the page
   */
  List<Subscription> list(Optional<UUID> after, int limit);

  /**
   * Finds a subscription.
   *
   * @param id its id
   * @return the subscription, or empty
   */
  Optional<Subscription> find(UUID id);

  /**
   * Changes the URL, the event types or the rate limit.
   *
   * @param id its id
   * @param change the fields to replace
   * @return the changed subscription
   * @throws dev.bothy.kernel.BothyException {@code not_found}, or {@code invalid} as for {@link
   *     #create}
   * @throws TargetNotAllowed as for {@link #create}
   */
  Subscription update(UUID id, SubscriptionChange change);

  /**
   * Disables a subscription with the reason {@code manual}; jobs already queued end without
   * sending.
   *
   * @param id its id
   * @return the subscription
   * @throws dev.bothy.kernel.BothyException {@code not_found}
   */
  Subscription disable(UUID id);

  /**
   * Enables a disabled subscription and clears its failure streak. It receives the events the
   * consumer passes from now on; an ordered subscription first delivers the event it held. Events
   * in between are delivered only by {@link #recover}.
   *
   * @param id its id
   * @return the subscription
   * @throws dev.bothy.kernel.BothyException {@code not_found}
   */
  Subscription enable(UUID id);

  /**
   * Deletes a subscription and its attempts; jobs already queued end without sending.
   *
   * @param id its id
   * @throws dev.bothy.kernel.BothyException {@code not_found}
   */
  void delete(UUID id);

  /**
   * Makes a new secret. The old one keeps signing beside it for {@code
   * webhooks.secretRotationWindow}, so receivers can switch without losing a delivery. While a
   * replaced secret still signs, another rotation is refused: it would stop that secret at once,
   * and a receiver may hold only it.
   *
   * @param id its id
   * @return the subscription and the new secret, shown this once
   * @throws dev.bothy.kernel.BothyException {@code not_found}; {@code conflict} inside the window
   *     of the last rotation
   */
  CreatedSubscription rotateSecret(UUID id);

  /**
   * Enables the subscription and delivers again every matching event from {@code fromSeq} on: for a
   * subscription disabled with {@code gap}, or to replay what it missed.
   *
   * @param id its id
   * @param fromSeq the first number to deliver; within the retained log
   * @return the subscription
   * @throws dev.bothy.kernel.BothyException {@code not_found}; {@code invalid} when {@code fromSeq}
   *     is below the oldest retained event or beyond the head plus one
   */
  Subscription recover(UUID id, long fromSeq);

  /**
   * Lists one page of a subscription's attempts, newest first by {@code (attempted_at, id)},
   * starting below a key: the database reads only the page. Attempts are never changed once
   * written, so pages neither repeat nor skip one.
   *
   * @param id the subscription's id
   * @param eventSeq only the attempts of this event, when given
   * @param before the key of the previous page's last attempt, empty for the first page
   * @param limit the most to return, at least 1
   * @return the attempts
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown subscription; {@code
   *     invalid} for a limit below 1
   */
  List<Attempt> attempts(UUID id, OptionalLong eventSeq, Optional<AttemptKey> before, int limit);

  /**
   * Lists the newest attempts of a subscription.
   *
   * @param id its id
   * @param eventSeq only the attempts of this event, when given
   * @param limit the most to return, at least 1
   * @return the attempts, newest first
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown subscription; {@code
   *     invalid} for a limit below 1
   */
  default List<Attempt> attempts(UUID id, OptionalLong eventSeq, int limit) {
    return attempts(id, eventSeq, Optional.empty(), limit);
  }

  /**
   * Lists one page of a subscription's attempt log, every event's, for the console.
   *
   * @param id the subscription's id
   * @param before the key of the previous page's last attempt, empty for the first page
   * @param limit the most to return, at least 1
   * @return the attempts, newest first
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown subscription; {@code
   *     invalid} for a limit below 1
   */
  default List<Attempt> attemptPage(UUID id, Optional<AttemptKey> before, int limit) {
    return attempts(id, OptionalLong.empty(), before, limit);
  }

  /**
   * Counts a subscription's attempts, reading at most {@code cap} rows: exact below the cap, {@code
   * cap} at or above it.
   *
   * @param id the subscription's id
   * @param cap the most rows read, at least 1
   * @return the count, at most {@code cap}
   * @throws dev.bothy.kernel.BothyException {@code not_found} for an unknown subscription; {@code
   *     invalid} for a cap below 1
   */
  long countAttemptsUpTo(UUID id, int cap);

  /**
   * Delivers one event again, with a new job, whether or not it was delivered before. An ordered
   * subscription gets it out of order: a resend is a repair, not part of the sequence.
   *
   * @param id its id
   * @param eventSeq the event's number, within the retained log
   * @throws dev.bothy.kernel.BothyException {@code not_found} for the subscription; {@code invalid}
   *     for an event not in the log or not matching its event types; {@code conflict} when the
   *     subscription is disabled
   */
  void resend(UUID id, long eventSeq);
}
