package dev.bothy.kernel;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What a log line may say about an exception: its class (the log key {@code error.type}), the
 * SQLSTATE of the first SQL error in its causes (the log key {@code sqlstate}), and a stack trace
 * without any message. An exception's message is never logged: a handler, a job or the PostgreSQL
 * driver may have put a payload, a key value or a row into it, and logs are kept longer and read
 * more widely than the database.
 *
 * <pre>{@code
 * LOG.warn("event consumer round failed: bothy.consumer.name={} error.type={} sqlstate={}",
 *     name, ErrorFields.type(cause), ErrorFields.sqlState(cause));
 * LOG.error("component failed", ErrorFields.redacted(cause)); // the stack trace, no message
 * }</pre>
 */
public final class ErrorFields {
  /** The SQLSTATE logged when no cause is an SQL error with a state. */
  public static final String NO_SQLSTATE = "none";

  // A cause chain longer than this is cut: a log line must not walk a pathological chain.
  private static final int MAX_CAUSES = 16;

  private ErrorFields() {}

  /**
   * Returns the exception's class name, the value of {@code error.type}.
   *
   * @param error the exception
   * @return for example {@code java.lang.IllegalStateException}
   */
  public static String type(Throwable error) {
    return error.getClass().getName();
  }

  /**
   * Returns the SQLSTATE of the first {@link SQLException} in the cause chain that has one.
   *
   * @param error the exception
   * @return the five-character state, or {@value #NO_SQLSTATE}
   */
  public static String sqlState(Throwable error) {
    Throwable t = error;
    for (int i = 0; t != null && i < MAX_CAUSES; i++, t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return NO_SQLSTATE;
  }

  /**
   * Returns a copy of the exception for a logger's throwable argument: the same stack traces and
   * chain of causes, each standing for the original's class and SQLSTATE, and no message of any of
   * them. The copies are of the class {@link Redacted}, whose message names the original class.
   *
   * @param error the exception
   * @return the copy, never null
   */
  public static Throwable redacted(Throwable error) {
    return copy(error, new IdentityHashMap<>(), 0);
  }

  private static Redacted copy(Throwable error, Map<Throwable, Redacted> seen, int depth) {
    Redacted done = seen.get(error);
    if (done != null) {
      return done;
    }
    String state = sqlStateOf(error);
    Redacted copy = new Redacted(type(error) + (state == null ? "" : " " + "sqlstate=" + state));
    copy.setStackTrace(error.getStackTrace());
    seen.put(error, copy);
    Throwable cause = error.getCause();
    if (cause != null && depth < MAX_CAUSES) {
      copy.initCause(copy(cause, seen, depth + 1));
    }
    return copy;
  }

  private static String sqlStateOf(Throwable error) {
    return error instanceof SQLException sql ? sql.getSQLState() : null;
  }

  /**
   * An exception's stand-in in a log line: the original's class and SQLSTATE as its message, the
   * original's stack trace, no original message.
   */
  public static final class Redacted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private Redacted(String description) {
      super(description);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      // The original's stack trace replaces it; capturing the logger's own is wasted work.
      return this;
    }
  }
}
