package dev.bothy.bus.adapters.postgres;

import static org.jooq.impl.DSL.val;

import dev.bothy.bus.app.ProjectionLock;
import dev.bothy.platform.pg.PgTx;
import org.jooq.impl.DSL;

/**
 * The pause of a projection consumer as a transaction-scoped advisory lock of PostgreSQL, in the
 * two-key space: the first key {@link #LOCK_CLASS}, the second the durable's {@code hashCode}. Two
 * durables with one hash share a lock, which costs a needless pause and never a wrong result. The
 * lock ends with the unit, so a process killed mid-replay leaves nothing held.
 */
public final class PgProjectionLock implements ProjectionLock {
  /** The first key of every projection's lock: the bytes of {@code bprj}. */
  public static final int LOCK_CLASS = 0x6270726a;

  /** Creates the lock; it works in the current unit's transaction through {@link PgTx}. */
  public PgProjectionLock() {}

  @Override
  public boolean tryShared(String durable) {
    return Boolean.TRUE.equals(
        PgTx.dsl()
            .select(
                DSL.function(
                    "pg_try_advisory_xact_lock_shared",
                    Boolean.class,
                    val(LOCK_CLASS),
                    val(durable.hashCode())))
            .fetchOne(0, Boolean.class));
  }

  @Override
  public void exclusive(String durable) {
    PgTx.dsl()
        .select(
            DSL.function(
                "pg_advisory_xact_lock", Object.class, val(LOCK_CLASS), val(durable.hashCode())))
        .fetch();
  }
}
