package dev.bothy.platform.pg;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of every unit of work, taken from the {@code database} configuration section.
 *
 * @param statementTimeout {@code database.statementTimeout}, set on each connection's session
 * @param lockTimeout {@code database.lockTimeout}, set on each connection's session
 * @param idleInTransactionTimeout {@code database.idleInTransactionTimeout}, set on each
 *     connection's session
 * @param maxAttempts {@code database.txMaxAttempts}: attempts of a unit that keeps hitting
 *     retryable errors, the first included
 * @param retryBaseDelay {@code database.txRetryBaseDelay}: the backoff before the second attempt
 * @param retryMaxDelay {@code database.txRetryMaxDelay}: the longest backoff between attempts
 */
public record TxSettings(
    Duration statementTimeout,
    Duration lockTimeout,
    Duration idleInTransactionTimeout,
    int maxAttempts,
    Duration retryBaseDelay,
    Duration retryMaxDelay) {

  /** Checks the values; the configuration has validated them already. */
  public TxSettings {
    Objects.requireNonNull(statementTimeout, "statementTimeout");
    Objects.requireNonNull(lockTimeout, "lockTimeout");
    Objects.requireNonNull(idleInTransactionTimeout, "idleInTransactionTimeout");
    Objects.requireNonNull(retryBaseDelay, "retryBaseDelay");
    Objects.requireNonNull(retryMaxDelay, "retryMaxDelay");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1");
    }
  }
}
