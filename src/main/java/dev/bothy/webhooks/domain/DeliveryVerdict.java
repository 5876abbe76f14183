package dev.bothy.webhooks.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The verdict on one delivery attempt, which the delivery job turns into success, a retry on the
 * {@link RetrySchedule}, a retry at the receiver's chosen time, or a disabled subscription.
 */
public sealed interface DeliveryVerdict
    permits DeliveryVerdict.Delivered,
        DeliveryVerdict.Gone,
        DeliveryVerdict.RetryAfter,
        DeliveryVerdict.Failed {

  /** The error kind of a redirect: never followed, since it could point anywhere. */
  String REDIRECT = "redirect";

  /** The error kind of any other status that is not a success. */
  String STATUS = "status";

  /** The error kind of a result that has neither a status nor a kind (not expected). */
  String IO = "io";

  /**
   * Judges one attempt.
   *
   * <ul>
   *   <li>a transport error: {@link Failed} with the transport's kind;
   *   <li>2xx: {@link Delivered};
   *   <li>410: {@link Gone}, the subscription is to be disabled;
   *   <li>429 and 503 with a valid {@code Retry-After}: {@link RetryAfter}, capped at {@code
   *       retryAfterCap}; without one, {@link Failed} {@value #STATUS};
   *   <li>3xx: {@link Failed} {@value #REDIRECT};
   *   <li>anything else: {@link Failed} {@value #STATUS}.
   * </ul>
   *
   * @param result the attempt's outcome
   * @param now the instant an HTTP-date {@code Retry-After} is measured from (the kernel Clock)
   * @param retryAfterCap the longest wait a receiver may ask for; positive
   * @return the verdict
   */
  static DeliveryVerdict classify(AttemptOutcome result, Instant now, Duration retryAfterCap) {
    Objects.requireNonNull(result, "result");
    if (result.errorKind().isPresent()) {
      return new Failed(result.errorKind().get());
    }
    int status = result.status();
    if (status >= 200 && status < 300) {
      return new Delivered();
    }
    if (status == 410) {
      return new Gone();
    }
    if (status == 429 || status == 503) {
      return dev.bothy.webhooks.domain.RetryAfter.parse(
              result.responseHeaders().get("retry-after"), now, retryAfterCap)
          .<DeliveryVerdict>map(RetryAfter::new)
          .orElseGet(() -> new Failed(STATUS));
    }
    if (status >= 300 && status < 400) {
      return new Failed(REDIRECT);
    }
    return new Failed(status == 0 ? IO : STATUS);
  }

  /** The receiver answered 2xx. */
  record Delivered() implements DeliveryVerdict {}

  /** The receiver answered 410 Gone: the subscription is to be disabled with {@code gone}. */
  record Gone() implements DeliveryVerdict {}

  /**
   * The receiver answered 429 or 503 and said when to come back.
   *
   * @param delay the wait it asked for, already capped; zero or more
   */
  record RetryAfter(Duration delay) implements DeliveryVerdict {
    /** Checks the delay. */
    public RetryAfter {
      if (delay == null || delay.isNegative()) {
        throw new IllegalArgumentException("a Retry-After delay is zero or more");
      }
    }
  }

  /**
   * The attempt failed; the next one follows the {@link RetrySchedule}.
   *
   * @param errorKind {@value #REDIRECT}, {@value #STATUS}, or the transport's kind ({@code
   *     refused_address}, {@code dns}, {@code connect}, {@code timeout}, {@code tls}, {@code io})
   */
  record Failed(String errorKind) implements DeliveryVerdict {
    /** Checks the kind. */
    public Failed {
      if (errorKind == null || errorKind.isBlank()) {
        throw new IllegalArgumentException("a failed attempt has an error kind");
      }
    }
  }
}
