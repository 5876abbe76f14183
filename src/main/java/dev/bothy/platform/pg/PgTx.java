package dev.bothy.platform.pg;

import org.jooq.DSLContext;

/**
 * The door from a store to the transaction of the calling thread's unit of work.
 *
 * <p>Stores in {@code adapters.postgres} packages call {@link #dsl()} in every method; they never
 * hold a connection or a {@link DSLContext} beyond one call.
 *
 * <pre>{@code
 * long head = PgTx.dsl().select(max(EVENT_LOG.SEQ)).from(EVENT_LOG).fetchOne(0, long.class);
 * }</pre>
 */
public final class PgTx {
  private PgTx() {}

  /**
   * Returns the jOOQ context bound to the current unit's connection.
   *
   * @return the context, valid until the unit ends
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit of work
   */
  public static DSLContext dsl() {
    return PgUnitOfWork.currentUnit("a store query").dsl();
  }
}
