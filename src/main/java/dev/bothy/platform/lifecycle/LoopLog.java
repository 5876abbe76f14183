package dev.bothy.platform.lifecycle;

import dev.bothy.kernel.ErrorFields;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * What a {@link ServiceLoop} says about its health, under its owner's logger and words.
 *
 * <p>The loop calls {@link #failing} for the first failed iteration after a success (or after the
 * start) and {@link #recovered} for the first success after a failure, so an outage that fails
 * every pass gives two lines instead of burying the one that says what started it. {@link #ended}
 * comes once, just before the loop hands the cause of an unexpected end to its fatal handler.
 */
public interface LoopLog {

  /**
   * Reports the first failed iteration of a run of failures.
   *
   * @param cause what the iteration threw
   * @param retryIn how long the loop waits before the next iteration
   */
  void failing(Throwable cause, Duration retryIn);

  /** Reports the first successful iteration after a run of failures. */
  void recovered();

  /**
   * Reports that the loop's thread ends outside a stop; the process is about to exit with 1.
   *
   * @param cause what ended it
   */
  void ended(Throwable cause);

  /**
   * Returns the standard lines: a warning {@code "<what> failed, retrying: <context> error.type=...
   * sqlstate=..."} with the exception's class and SQLSTATE (never its message, which may hold
   * data), an info line {@code "<what> recovered: <context>"}, and an error line {@code "<what>
   * loop ended unexpectedly: <context> error.type=..."} with the class of the cause (the fatal
   * handler logs its stack trace). An empty context drops its colon from the recovery line.
   *
   * @param logger the owner's logger, so the lines carry the owner's name
   * @param what the pass in words, such as {@code "job fetch"}
   * @param context {@code key=value} pairs naming the loop, such as {@code "queue=default"}; empty
   *     for none. Names and numbers only, never payloads
   * @return the log
   */
  static LoopLog of(Logger logger, String what, String context) {
    Objects.requireNonNull(logger, "logger");
    Objects.requireNonNull(what, "what");
    String prefix = context.isEmpty() ? "" : context + " ";
    return new LoopLog() {
      @Override
      public void failing(Throwable cause, Duration retryIn) {
        logger.warn(
            "{} failed, retrying: {}error.type={} sqlstate={}",
            what,
            prefix,
            ErrorFields.type(cause),
            ErrorFields.sqlState(cause));
      }

      @Override
      public void recovered() {
        logger.info(context.isEmpty() ? "{} recovered" : "{} recovered: {}", what, context);
      }

      @Override
      public void ended(Throwable cause) {
        // No stack trace here: the fatal handler (Lifecycle.fail) logs the cause with it.
        logger.error(
            "{} loop ended unexpectedly: {}error.type={}",
            what,
            prefix,
            cause.getClass().getName());
      }
    };
  }
}
