package dev.bothy.webhooks.app;

/**
 * The outgoing port that performs one webhook POST. An implementation resolves the target's host
 * once, refuses it by the {@link dev.bothy.webhooks.domain.NetworkPolicy}, connects only to the
 * address it checked, follows no redirect and keeps to the request's timeout.
 */
public interface WebhookTransport {
  /**
   * Sends one request.
   *
   * @param request the signed request
   * @return the response, or the kind of error; never throws for a network problem, a refused
   *     target or a timeout
   */
  SendResult send(OutgoingRequest request);
}
