package dev.bothy.bus.domain;

/**
 * What dispatch answers for one delivery of an event to one handler, and for the whole message
 * after {@link VerdictRules#combine}: the transport turns it into its own verbs (on NATS {@code
 * ack}, {@code nakWithDelay}, {@code term}; on the log a completed job, a retried job, a completed
 * job with a dead letter).
 */
public enum Verdict {
  /** Handled (or handled before): done with this event. */
  ACK("ack"),
  /** A retryable failure: deliver again after the schedule's delay. */
  NAK("nak"),
  /** A failure no retry gets past: stop delivering and write a dead letter. */
  TERM("term");

  private final String code;

  Verdict(String code) {
    this.code = code;
  }

  /**
   * Returns the lower-case code, used as the metric label {@code bothy_bus_verdict}.
   *
   * @return {@code ack}, {@code nak} or {@code term}
   */
  public String code() {
    return code;
  }
}
