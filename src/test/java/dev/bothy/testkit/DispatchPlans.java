package dev.bothy.testkit;

import dev.bothy.bus.app.DispatchFaults;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The plans of the faults that strike in dispatch ({@link Fault#CRASH_BEFORE_COMMIT}, {@link
 * Fault#CRASH_AFTER_COMMIT}, {@link Fault#BACKEND_TERMINATED}), armed through {@link
 * DispatchFaults}: each strikes the first delivery of every handler and event (D-CK-4).
 */
final class DispatchPlans {
  private DispatchPlans() {}

  /** The backend of the calling unit, for {@link Fault#BACKEND_TERMINATED}. */
  static final String BACKEND_PID_SQL = "SELECT pg_backend_pid()";

  /** Terminates a backend and waits up to 5 s for it to end (PostgreSQL 14 and newer). */
  static final String TERMINATE_SQL = "SELECT pg_terminate_backend(?, 5000)";

  /** Arms dispatch's fault points for the faults that strike there. */
  static void arm(ChaosRig rig, Fault fault, PgExtension pg) {
    Set<String> struck = ConcurrentHashMap.newKeySet();
    switch (fault) {
      case CRASH_BEFORE_COMMIT ->
          DispatchFaults.arm(
              rig.dispatch,
              (point, handler, event) -> {
                boolean crash =
                    point == DispatchFaults.Point.BEFORE_COMMIT && struck.add(handler + event.id());
                if (crash) {
                  // Dispatch counts no outcome for a crash; the delivery happened all the same.
                  rig.deliveries.incrementAndGet();
                }
                return crash;
              });
      case CRASH_AFTER_COMMIT ->
          DispatchFaults.arm(
              rig.dispatch,
              (point, handler, event) ->
                  point == DispatchFaults.Point.AFTER_COMMIT && struck.add(handler + event.id()));
      case BACKEND_TERMINATED ->
          DispatchFaults.arm(
              rig.dispatch,
              (point, handler, event) -> {
                if (point == DispatchFaults.Point.BEFORE_COMMIT
                    && struck.add(handler + event.id())) {
                  terminateOwnBackend(pg);
                }
                return false;
              });
      default -> {
        // The other faults strike in the transport, not in dispatch.
      }
    }
  }

  /** Terminates the backend of the calling thread's unit, from a superuser connection. */
  private static void terminateOwnBackend(PgExtension pg) {
    Object pid = PgTx.dsl().fetchValue(BACKEND_PID_SQL);
    try (Connection c = pg.superuser().getConnection();
        PreparedStatement s = c.prepareStatement(TERMINATE_SQL)) {
      s.setInt(1, ((Number) pid).intValue());
      s.execute();
    } catch (SQLException e) {
      throw new IllegalStateException("the backend could not be terminated", e);
    }
  }
}
