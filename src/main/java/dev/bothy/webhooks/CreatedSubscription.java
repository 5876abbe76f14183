package dev.bothy.webhooks;

import java.util.Objects;

/**
 * A subscription and its new signing secret: the only time the secret is shown (at creation and
 * after a rotation).
 *
 * @param subscription the subscription
 * @param secret the secret, {@code whsec_} and base64
 */
public record CreatedSubscription(Subscription subscription, String secret) {
  /** Checks that no component is null. */
  public CreatedSubscription {
    Objects.requireNonNull(subscription, "subscription");
    Objects.requireNonNull(secret, "secret");
  }

  /** Leaves the secret out, so a logged or printed value never shows it. */
  @Override
  public String toString() {
    return "CreatedSubscription[" + subscription.id() + "]";
  }
}
