package dev.bothy.bus;

/** Reads the relay's state from any thread. */
public interface RelayView {
  /** A process whose relay is off (no {@code bus.nats.url}). */
  RelayView OFF =
      new RelayView() {
        @Override
        public RelayState state() {
          return new RelayState(RelayState.Mode.OFF, false, java.util.Optional.empty(), 0);
        }

        @Override
        public long lag() {
          return 0;
        }
      };

  /**
   * Returns the state now.
   *
   * @return the state
   */
  RelayState state();

  /**
   * Reads the relay's lag from the database: the log's head minus the relay's cursor, floored at
   * zero; the head when the cursor row is missing. Runs its own unit of work.
   *
   * @return the number of committed events the stream has not acknowledged yet
   */
  long lag();
}
