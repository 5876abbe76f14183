package dev.bothy.webhooks;

/** Whether a webhook subscription receives deliveries. */
public enum SubscriptionState {
  /** Matching events are delivered. */
  ACTIVE("active"),
  /** Nothing is delivered; {@link DisabledReason} says why. */
  DISABLED("disabled");

  private final String code;

  SubscriptionState(String code) {
    this.code = code;
  }

  /**
   * The code stored in {@code webhook_subscriptions.state} and shown by the API.
   *
   * @return {@code active} or {@code disabled}
   */
  public String code() {
    return code;
  }

  /**
   * Finds a state by its code.
   *
   * @param code the code
   * @return the state
   * @throws IllegalArgumentException for an unknown code
   */
  public static SubscriptionState fromCode(String code) {
    for (SubscriptionState s : values()) {
      if (s.code.equals(code)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown subscription state");
  }
}
