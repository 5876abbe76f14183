package dev.bothy.bus.app;

/**
 * The right to relay: one holder per database at a time, given up when its holder dies (the adapter
 * is a session advisory lock on a dedicated connection). One relay thread calls it.
 */
public interface RelayLease {

  /**
   * Takes the lease when nobody holds it; never waits.
   *
   * @return true when this process holds it after the call; false when another process does
   * @throws dev.bothy.kernel.BothyException {@code unavailable} when the lease's store cannot be
   *     reached, which is not the same as another holder
   */
  boolean tryAcquire();

  /**
   * Tells whether this process still holds the lease, with a round trip; also the holder's
   * heartbeat.
   *
   * @return true when held
   */
  boolean held();

  /** Gives the lease up. */
  void release();
}
