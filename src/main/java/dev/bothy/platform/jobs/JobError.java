package dev.bothy.platform.jobs;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a job's error history.
 *
 * @param at when the attempt ended
 * @param attempt the attempt that failed
 * @param kind {@code exception}, {@code timeout}, {@code rescued} or {@code cancelled}
 * @param error the exception's class name, or empty
 * @param message the exception's message, cut at {@code jobs.errorMessageMaxChars}
 */
public record JobError(Instant at, int attempt, String kind, String error, String message) {
  /** Checks the fields. */
  public JobError {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(message, "message");
  }
}
