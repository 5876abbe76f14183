package dev.bothy.bus;

/** Reads the relay's state from any thread. */
public interface RelayView {
  /** A process whose relay is off (no {@code bus.nats.url}). */
  RelayView OFF = () -> new RelayState(RelayState.Mode.OFF, false, java.util.Optional.empty(), 0);

  /**
   * Returns the state now.
   *
   * @return the state
   */
  RelayState state();
}
