package dev.bothy.webhooks;

/** Why a webhook subscription is disabled. */
public enum DisabledReason {
  /** The next event to deliver fell behind {@code sync.eventRetention}; recover from a seq. */
  GAP("gap"),
  /** Deliveries failed without a success for {@code webhooks.disableAfter}. */
  FAILING("failing"),
  /** The receiver answered {@code 410 Gone}. */
  GONE("gone"),
  /** An operator disabled it. */
  MANUAL("manual");

  private final String code;

  DisabledReason(String code) {
    this.code = code;
  }

  /**
   * The code stored in {@code webhook_subscriptions.disabled_reason} and shown by the API.
   *
   * @return {@code gap}, {@code failing}, {@code gone} or {@code manual}
   */
  public String code() {
    return code;
  }

  /**
   * Finds a reason by its code.
   *
   * @param code the code
   * @return the reason
   * @throws IllegalArgumentException for an unknown code
   */
  public static DisabledReason fromCode(String code) {
    for (DisabledReason r : values()) {
      if (r.code.equals(code)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown disabled reason");
  }
}
