package dev.bothy.webhooks;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A partial update of a subscription: each present field replaces the stored one.
 *
 * @param url a new target URL, checked like at creation
 * @param eventTypes new event types, at least one
 * @param rateLimit a new rate limit, at least 1
 */
public record SubscriptionChange(
    Optional<String> url, Optional<List<String>> eventTypes, OptionalInt rateLimit) {
  /** Checks that no component is null and copies the list. */
  public SubscriptionChange {
    Objects.requireNonNull(url, "url");
    eventTypes = eventTypes.map(List::copyOf);
    Objects.requireNonNull(rateLimit, "rateLimit");
  }
}
