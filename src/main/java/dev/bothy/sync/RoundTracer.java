package dev.bothy.sync;

import java.util.concurrent.Callable;

/**
 * Wraps the handling part of each worker consumer round that found events in a trace span (a round
 * that finds nothing starts none, so idle consumers record no trace); {@code wire} implements it
 * with the OpenTelemetry API, which is a no-op without the agent.
 */
public interface RoundTracer {
  /** Runs rounds without a span: for tests and tools. */
  RoundTracer NONE =
      new RoundTracer() {
        @Override
        public <T> T round(String consumer, Callable<T> round) throws Exception {
          return round.call();
        }
      };

  /**
   * Runs one round inside a span named after its consumer.
   *
   * @param consumer the consumer's name
   * @param round the round
   * @param <T> the round's result type
   * @return the round's result
   * @throws Exception what the round threw, unchanged
   */
  <T> T round(String consumer, Callable<T> round) throws Exception;
}
