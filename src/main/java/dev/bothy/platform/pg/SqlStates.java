package dev.bothy.platform.pg;

import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;

/** The SQLSTATE codes after which a whole unit of work is tried again. */
final class SqlStates {
  /** Deadlock detected. */
  static final String DEADLOCK = "40P01";

  /** Lock not available: {@code lock_timeout} or {@code NOWAIT}. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  /** Serialization failure. */
  static final String SERIALIZATION_FAILURE = "40001";

  private static final Set<String> RETRYABLE =
      Set.of(DEADLOCK, LOCK_NOT_AVAILABLE, SERIALIZATION_FAILURE);

  private SqlStates() {}

  /**
   * Finds a retryable SQLSTATE in a failure's cause chain; jOOQ and Hikari wrap the driver's
   * exception, so the state can sit a few causes deep.
   *
   * @param failure the failure
   * @return the retryable state, or empty
   */
  static Optional<String> retryable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && RETRYABLE.contains(sql.getSQLState())) {
        return Optional.of(sql.getSQLState());
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }
}
