package dev.bothy.platform.pg;

import dev.bothy.kernel.ErrorFields;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL session advisory lock held on a dedicated connection of its own (outside the pool,
 * named by the application name of its {@link PoolSettings}): one holder per database at a time,
 * for as long as its session lives.
 *
 * <p>The lock ends with the session, so a holder that dies gives it up within a bounded time:
 *
 * <ul>
 *   <li>a process killed outright: the kernel closes its socket and the backend ends at once;
 *   <li>a backend terminated ({@code pg_terminate_backend}): the lock goes with it, and the holder
 *       learns it at its next {@link #held()};
 *   <li>a holder that hangs or is cut off: the session sets {@code idle_session_timeout} to the
 *       idle timeout, so the server ends a session that sent nothing for that long. The holder
 *       calls {@link #held()} more often than that, which is also its heartbeat.
 * </ul>
 *
 * <p>Not thread-safe: one owner thread calls every method but {@link #close()}.
 */
public final class SessionLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionLock.class);

  // Runs the socket timeout's callbacks on the calling thread: the driver only uses it to abort
  // a connection whose socket timed out.
  private static final Executor DIRECT = Runnable::run;

  private final PoolSettings connection;
  private final long key;
  private final Duration idleTimeout;
  private volatile Connection current;
  private volatile boolean holding;

  /**
   * Creates the lock; nothing connects until {@link #tryAcquire()}.
   *
   * @param connection URL, user and password; its application name names the session in {@code
   *     pg_stat_activity}
   * @param key the advisory lock key, one per purpose
   * @param idleTimeout after how long without a statement the server ends the session and so frees
   *     the lock; also the socket timeout of every statement on it
   */
  public SessionLock(PoolSettings connection, long key, Duration idleTimeout) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.key = key;
    this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (idleTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("the idle timeout must be at least 1 ms");
    }
  }

  /**
   * Takes the lock when no other session holds it; opens the connection first when it has none.
   * Does not wait.
   *
   * @return true when this session holds the lock after the call
   * @throws SQLException when the database cannot be reached; the connection is closed
   */
  public boolean tryAcquire() throws SQLException {
    if (holding) {
      return true;
    }
    try {
      DSLContext dsl = dsl();
      Boolean taken =
          dsl.select(DSL.function("pg_try_advisory_lock", SQLDataType.BOOLEAN, DSL.val(key)))
              .fetchOne(0, Boolean.class);
      holding = Boolean.TRUE.equals(taken);
      return holding;
    } catch (SQLException | RuntimeException e) {
      closeConnection();
      throw e;
    }
  }

  /**
   * Tells whether this session still holds the lock, with one round trip that also keeps the
   * session from the idle timeout. A lost connection (a terminated backend, a restart, a cut) means
   * the lock is gone: the connection is closed and the next {@link #tryAcquire()} opens a new one.
   *
   * @return true when the lock is held
   */
  public boolean held() {
    if (!holding) {
      return false;
    }
    Connection c = current;
    if (c == null) {
      holding = false;
      return false;
    }
    try {
      DSL.using(c, SQLDialect.POSTGRES).selectOne().fetch();
      return true;
    } catch (RuntimeException e) {
      LOG.warn(
          "session lock lost: application_name={} error.type={} sqlstate={}",
          connection.applicationName(),
          ErrorFields.type(e),
          ErrorFields.sqlState(e));
      closeConnection();
      return false;
    }
  }

  /** Gives the lock up by closing the session; a later {@link #tryAcquire()} connects again. */
  public void release() {
    closeConnection();
  }

  /** Same as {@link #release()}; callable from any thread. */
  @Override
  public void close() {
    closeConnection();
  }

  private DSLContext dsl() throws SQLException {
    Connection c = current;
    if (c == null) {
      c = Pools.connect(connection);
      current = c;
      c.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis()));
      DSL.using(c, SQLDialect.POSTGRES)
          .select(
              DSL.function(
                  "set_config",
                  SQLDataType.VARCHAR,
                  DSL.val("idle_session_timeout"),
                  DSL.val(idleTimeout.toMillis() + "ms"),
                  DSL.val(false)))
          .fetch();
    }
    return DSL.using(c, SQLDialect.POSTGRES);
  }

  private void closeConnection() {
    Connection c = current;
    current = null;
    holding = false;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug(
            "closing the session lock connection failed: error.type={} sqlstate={}",
            ErrorFields.type(e),
            ErrorFields.sqlState(e));
      }
    }
  }
}
