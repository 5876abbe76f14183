package dev.bothy.bus.adapters.postgres;

import dev.bothy.bus.app.RelayLease;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.SessionLock;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The relay's lease: a session advisory lock on a dedicated connection (application name {@link
 * #APPLICATION_NAME}), one per database. The session sets {@code idle_session_timeout} to {@code
 * bus.relay.leaseTimeout}, so a holder that stops talking frees it within that time; a killed
 * process or a terminated backend frees it at once.
 */
public final class PgRelayLease implements RelayLease {
  /** The application name of the lease's connection. */
  public static final String APPLICATION_NAME = "bothy-bus-relay";

  /**
   * The advisory lock key of the relay of the {@code EVENTS} stream: the bytes of {@code bothyrly}
   * as a number, so it stays clear of small keys other tools take.
   */
  public static final long LOCK_KEY = 0x626f746879726c79L;

  private final SessionLock lock;

  /**
   * Creates the lease; nothing connects until the first {@link #tryAcquire()}.
   *
   * @param connection the connection settings; its application name should be {@link
   *     #APPLICATION_NAME}
   * @param leaseTimeout {@code bus.relay.leaseTimeout}
   */
  public PgRelayLease(PoolSettings connection, Duration leaseTimeout) {
    this.lock = new SessionLock(connection, LOCK_KEY, leaseTimeout);
  }

  /**
   * {@inheritDoc}
   *
   * @throws BothyException {@code unavailable} when the database cannot be reached: the relay's
   *     round fails and is retried, so its log says when the outage began and when it ended, where
   *     a {@code false} would read as another holder (D-CK-15)
   */
  @Override
  public boolean tryAcquire() {
    try {
      // A waiting process keeps its session: each try is a statement, which also keeps the
      // session from its idle timeout while the relay polls more often than that.
      return lock.tryAcquire();
    } catch (SQLException e) {
      throw BothyException.unavailable("bus relay lease unreachable: the database", e);
    }
  }

  @Override
  public boolean held() {
    return lock.held();
  }

  @Override
  public void release() {
    lock.release();
  }
}
