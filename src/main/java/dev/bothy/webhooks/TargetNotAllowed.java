package dev.bothy.webhooks;

import java.util.Objects;

/**
 * A subscription's target URL that the network rules refuse ({@code webhooks.allowedNetworks},
 * {@code webhooks.allowPlainHttp}): the API answers it with the problem {@code target_refused}. The
 * message names the reason only, never the URL, which may hold a token.
 */
public final class TargetNotAllowed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  /**
   * Creates the error.
   *
   * @param reason the reason's code, such as {@code refused_address} or {@code plain_http}
   */
  public TargetNotAllowed(String reason) {
    super("the webhook target is refused by the network rules: " + reason, null, false, false);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * The reason's code.
   *
   * @return for example {@code refused_address}
   */
  public String reason() {
    return reason;
  }
}
