package dev.bothy.webhooks;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a caller asks for when creating a subscription.
 *
 * @param url the target URL
 * @param eventTypes the registered event types to deliver, at least one
 * @param ordered whether to deliver one event at a time in {@code seq} order
 * @param rateLimit the most attempts per second; empty for {@code webhooks.defaultRateLimit}
 */
public record NewSubscription(
    String url, List<String> eventTypes, boolean ordered, OptionalInt rateLimit) {
  /** Checks that no component is null and copies the list. */
  public NewSubscription {
    Objects.requireNonNull(url, "url");
    eventTypes = List.copyOf(eventTypes);
    Objects.requireNonNull(rateLimit, "rateLimit");
  }
}
