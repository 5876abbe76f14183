package dev.bothy.sync.domain;

/**
 * A hole in the event log that retention does not explain: a bug, never skipped. The round rolls
 * back, the cursor never passes the hole, the consumer stalls and its lag alert reports it.
 */
public final class ConsumerGap extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the error.
   *
   * @param message which numbers were expected and found
   */
  public ConsumerGap(String message) {
    super(message);
  }
}
