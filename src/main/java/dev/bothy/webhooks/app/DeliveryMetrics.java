package dev.bothy.webhooks.app;

import dev.bothy.webhooks.domain.DeliveryVerdict;
import java.time.Duration;

/** Where deliveries are counted; {@code wire} implements it on the Dropwizard registry. */
public interface DeliveryMetrics {
  /** Counts nothing: for tests and processes that export no metrics. */
  DeliveryMetrics NONE =
      new DeliveryMetrics() {
        @Override
        public void attempt(DeliveryVerdict verdict) {}

        @Override
        public void deliveredAfter(Duration latency) {}

        @Override
        public void receiverBusy() {}
      };

  /**
   * Counts one attempt by its verdict.
   *
   * @param verdict what the answer meant
   */
  void attempt(DeliveryVerdict verdict);

  /**
   * Records the time from an event's append to its delivery's 2xx answer.
   *
   * @param latency the time
   */
  void deliveredAfter(Duration latency);

  /**
   * Counts one delivery snoozed without an attempt because every connection to its receiver stayed
   * busy for {@code webhooks.connectionWait} ({@link ReceiverBusy}).
   */
  void receiverBusy();
}
