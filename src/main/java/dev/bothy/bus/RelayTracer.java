package dev.bothy.bus;

import java.util.function.Supplier;

/**
 * Wraps each relay round that publishes in a trace span; {@code wire} implements it with the
 * OpenTelemetry API, which is a no-op without the agent. Rounds that find nothing get no span.
 */
public interface RelayTracer {
  /** Runs rounds without a span: for tests and tools. */
  RelayTracer NONE =
      new RelayTracer() {
        @Override
        public <T> T round(String stream, long firstSeq, int events, Supplier<T> round) {
          return round.get();
        }
      };

  /**
   * Runs the publishing part of one round inside a span.
   *
   * @param stream the stream's name
   * @param firstSeq the first event number the round publishes
   * @param events how many events it publishes
   * @param round the work
   * @param <T> its result type
   * @return its result
   */
  <T> T round(String stream, long firstSeq, int events, Supplier<T> round);
}
