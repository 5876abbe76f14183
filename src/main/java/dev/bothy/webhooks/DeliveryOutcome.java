package dev.bothy.webhooks;

/** What one delivery attempt ended with, as {@code webhook_attempts.outcome} stores it. */
public enum DeliveryOutcome {
  /** A 2xx answer. */
  DELIVERED("delivered"),
  /** {@code 410 Gone}: the subscription is disabled with {@code gone}. */
  GONE("gone"),
  /** {@code 429} or {@code 503} with a {@code Retry-After}: the job waits that long. */
  RETRY_AFTER("retry_after"),
  /**
   * Any other answer, a timeout, a network error or a target the network rules refused: retried on
   * the schedule; the error kind says which.
   */
  FAILED("failed");

  private final String code;

  DeliveryOutcome(String code) {
    this.code = code;
  }

  /**
   * The stored code.
   *
   * @return the code, such as {@code delivered}
   */
  public String code() {
    return code;
  }

  /**
   * Finds an outcome by its code.
   *
   * @param code the code
   * @return the outcome
   * @throws IllegalArgumentException for an unknown code
   */
  public static DeliveryOutcome fromCode(String code) {
    for (DeliveryOutcome o : values()) {
      if (o.code.equals(code)) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown attempt outcome");
  }
}
