package dev.bothy.sync;

import java.util.function.Supplier;

/**
 * Wraps each worker consumer round in a trace span; {@code wire} implements it with the
 * OpenTelemetry API, which is a no-op without the agent.
 */
public interface RoundTracer {
  /** Runs rounds without a span: for tests and tools. */
  RoundTracer NONE =
      new RoundTracer() {
        @Override
        public <T> T round(String consumer, Supplier<T> round) {
          return round.get();
        }
      };

  /**
   * Runs one round inside a span named after its consumer.
   *
   * @param consumer the consumer's name
   * @param round the round
   * @param <T> the round's result type
   * @return the round's result
   */
  <T> T round(String consumer, Supplier<T> round);
}
