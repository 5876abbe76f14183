package dev.bothy.bus;

/**
 * Where dispatch reports what it did; {@code wire} implements it with the process's metric
 * registry.
 */
public interface DispatchMetrics {
  /** Reports nothing: for tests and tools. */
  DispatchMetrics NONE =
      new DispatchMetrics() {
        @Override
        public void outcome(String handler, String outcome) {}

        @Override
        public void handled(String handler, long nanos) {}

        @Override
        public void deadLetter(String handler) {}
      };

  /**
   * Counts one delivery of an event to a handler by its outcome.
   *
   * @param handler the handler's name
   * @param outcome {@code ack}, {@code duplicate} (the delivery row existed), {@code parked} (an
   *     open dead letter holds the pair), {@code nak} or {@code term}
   */
  void outcome(String handler, String outcome);

  /**
   * Records how long the handler's unit of work took, the delivery row included.
   *
   * @param handler the handler's name
   * @param nanos the duration
   */
  void handled(String handler, long nanos);

  /**
   * Counts one dead letter written.
   *
   * @param handler the handler's name
   */
  void deadLetter(String handler);
}
