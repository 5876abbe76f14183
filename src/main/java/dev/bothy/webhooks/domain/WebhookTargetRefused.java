package dev.bothy.webhooks.domain;

import java.util.Objects;

/**
 * A webhook target the network rules refuse. The message says why in words fit for a problem
 * response and a log line: it never holds the URL (whose query may carry a receiver's token) nor
 * the resolved address, only the {@link Reason} and, for an address, the name of its range.
 */
public final class WebhookTargetRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why a target was refused. */
  public enum Reason {
    /** Not an absolute {@code http} or {@code https} URL. */
    SCHEME("scheme"),
    /** {@code http} while {@code webhooks.allowPlainHttp} is false. */
    PLAIN_HTTP("plain_http"),
    /** No host name or address. */
    NO_HOST("no_host"),
    /** User information ({@code user:password@}) in the URL. */
    USERINFO("userinfo"),
    /** A port outside 1 to 65535, to which no connection can be made. */
    PORT("port"),
    /**
     * The host ends in a number but is not four decimal numbers without leading zeros (octal, hex
     * or short forms, which parsers read as different addresses).
     */
    AMBIGUOUS_ADDRESS("ambiguous_address"),
    /** The host is, or resolves to, an address in a refused range. */
    REFUSED_ADDRESS("refused_address"),
    /** The host does not resolve. */
    UNRESOLVED("unresolved");

    private final String code;

    Reason(String code) {
      this.code = code;
    }

    /**
     * Returns the stable code, for problem responses and metrics.
     *
     * @return for example {@code refused_address}
     */
    public String code() {
      return code;
    }
  }

  private final Reason reason;

  /**
   * Creates the refusal.
   *
   * @param reason why
   * @param message a sentence without the URL or address
   */
  public WebhookTargetRefused(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * Returns why the target was refused.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }

  /**
   * Returns the reason's stable code.
   *
   * @return for example {@code plain_http}
   */
  public String code() {
    return reason.code();
  }
}
