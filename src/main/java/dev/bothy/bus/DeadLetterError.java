package dev.bothy.bus;

import java.time.Instant;
import java.util.Objects;

/**
 * One death of a dead letter's handler and event pair: the failure that ended its dispatch. A pair
 * dies once, and once more after each replay that fails again; its history keeps every death.
 *
 * @param at when the failure happened
 * @param deliveries the deliveries made up to and with this failure
 * @param kind the error kind's code, {@code exception} for a plain exception, {@code error} for a
 *     {@link java.lang.Error}
 * @param error the failure's class name
 * @param message the failure's message, cut at {@code jobs.errorMessageMaxChars}
 */
public record DeadLetterError(
    Instant at, int deliveries, String kind, String error, String message) {
  /** Checks that no component is null. */
  public DeadLetterError {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(message, "message");
  }
}
