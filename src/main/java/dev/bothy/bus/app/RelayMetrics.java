package dev.bothy.bus.app;

import java.time.Duration;

/** What the relay counts; {@code wire} exports it to Prometheus. */
public interface RelayMetrics {
  /** Counts nothing: for tests and the republish command. */
  RelayMetrics NONE =
      new RelayMetrics() {
        @Override
        public void published(int events, int duplicates) {}

        @Override
        public void window(Duration publishToLastAck) {}
      };

  /**
   * Counts the events of a window the stream acknowledged in order.
   *
   * @param events how many were acknowledged
   * @param duplicates how many of them the stream had already (a republish)
   */
  void published(int events, int duplicates);

  /**
   * Records the time from a window's first publish to its last ack.
   *
   * @param publishToLastAck the latency
   */
  void window(Duration publishToLastAck);
}
