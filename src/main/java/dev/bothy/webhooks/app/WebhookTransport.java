package dev.bothy.webhooks.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The outgoing port that performs one webhook POST. An implementation resolves the target's host
 * once, refuses it by the {@link dev.bothy.webhooks.domain.NetworkPolicy}, connects only to the
 * address it checked, follows no redirect and keeps to the request's timeout. A transport that
 * holds resources (connections, threads) releases them in {@link #close()}, which the module's
 * wiring calls at shutdown after the delivery jobs stopped.
 */
public interface WebhookTransport extends AutoCloseable {
  /**
   * Sends one request.
   *
   * @param request the signed request
   * @return the response, or the kind of error; never throws for a network problem, a refused
   *     target or a timeout
   * @throws ReceiverBusy when no connection to the target came free within the transport's
   *     connection wait: nothing was sent, so it is not an attempt
   */
  SendResult send(OutgoingRequest request);

  /**
   * Starts sending one request and returns without waiting for the answer (ADR 0031). The host's
   * lookup, when the target names one, runs on {@code lookups}; a target that is an address needs
   * none. The default sends with {@link #send} on {@code lookups}, for a transport whose requests
   * block a thread anyway.
   *
   * @param request the signed request
   * @param lookups where what blocks runs: the host's lookup, or the whole request by default
   * @return completes with the response or the kind of error, as {@link #send} returns them;
   *     exceptionally with {@link ReceiverBusy} when nothing was sent
   */
  default CompletableFuture<SendResult> sendAsync(OutgoingRequest request, Executor lookups) {
    return CompletableFuture.supplyAsync(() -> send(request), lookups);
  }

  /**
   * Releases what the transport holds; a {@link #send} after it may fail. Does nothing unless the
   * implementation holds resources.
   */
  @Override
  default void close() {}
}
