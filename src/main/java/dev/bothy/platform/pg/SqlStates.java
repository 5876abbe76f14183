package dev.bothy.platform.pg;

import dev.bothy.kernel.ErrorKind;
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

  /** Undefined table: the schema lacks a table, the database was not migrated. */
  static final String UNDEFINED_TABLE = "42P01";

  /** Undefined column: the schema is older than the code. */
  static final String UNDEFINED_COLUMN = "42703";

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

  /**
   * Finds the SQLSTATE of the first {@link SQLException} in a failure's cause chain.
   *
   * @param failure the failure
   * @return the state, or empty when no SQL exception with a state is in the chain
   */
  static Optional<String> first(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return Optional.of(sql.getSQLState());
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }

  /**
   * Tells whether a SQLSTATE says the schema lacks what the code reads: the database was never
   * migrated, or by an older jar.
   *
   * @param state the SQLSTATE
   * @return true for an undefined table or column
   */
  static boolean schemaBehind(String state) {
    return state.equals(UNDEFINED_TABLE) || state.equals(UNDEFINED_COLUMN);
  }

  /**
   * Maps a SQLSTATE that is not retried to Bothy's error kind.
   *
   * @param state the SQLSTATE
   * @return {@code unavailable} for lost connections, shutdowns, exhausted resources and cancelled
   *     statements (a later try may work); {@code conflict} for integrity violations; {@code
   *     invalid} for data exceptions; {@code internal} for everything else (a bug)
   */
  static ErrorKind kindOf(String state) {
    if (state.startsWith("08")
        || state.startsWith("53")
        || state.startsWith("57P")
        || state.equals("57014")) {
      return ErrorKind.UNAVAILABLE;
    }
    if (state.startsWith("23")) {
      return ErrorKind.CONFLICT;
    }
    if (state.equals(UNDEFINED_TABLE)) {
      return ErrorKind.NOT_FOUND;
    }
    if (state.startsWith("22")) {
      return ErrorKind.INVALID;
    }
    return ErrorKind.INTERNAL;
  }
}
