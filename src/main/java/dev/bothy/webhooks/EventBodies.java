package dev.bothy.webhooks;

import dev.bothy.sync.Event;

/**
 * Renders the body of a delivery: the event exactly as the public API shows it in {@code GET
 * /v1/events}, so receivers parse one format. {@code wire} implements it with the API's own
 * encoder; the webhooks module does not know JSON.
 */
@FunctionalInterface
public interface EventBodies {
  /**
   * Renders an event.
   *
   * @param event the stored event
   * @return its JSON, UTF-8
   */
  byte[] render(Event event);
}
