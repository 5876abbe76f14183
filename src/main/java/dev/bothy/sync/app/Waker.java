package dev.bothy.sync.app;

/**
 * Wakes the consumer runner when events were committed: the adapter listens on {@code event_log} on
 * a dedicated connection of its own. Losing it loses nothing: the runner also polls every {@code
 * consumer.pollInterval}, and the cursors live in the database.
 */
public interface Waker {
  /**
   * Starts listening.
   *
   * @param onWake called on every notification and after every (re)connect; must not block
   */
  void start(Runnable onWake);

  /** Stops listening and closes the connection. */
  void close();
}
