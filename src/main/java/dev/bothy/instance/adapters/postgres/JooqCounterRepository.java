package dev.bothy.instance.adapters.postgres;

import static dev.bothy.db.Tables.SEQUENCE_COUNTERS;

import dev.bothy.instance.app.CounterRepository;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.pg.PgTx;
import org.jooq.Record1;

/**
 * The counters in {@code sequence_counters}.
 *
 * <p>{@link #advance} is one {@code UPDATE ... SET value = value + n ... RETURNING value}: the row
 * lock it takes is the serialization point and lasts until commit. In READ COMMITTED a unit that
 * waits on the lock re-reads the committed row, so numbers follow commit order. Nothing else in
 * Bothy may lock these rows.
 */
public final class JooqCounterRepository implements CounterRepository {

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqCounterRepository() {}

  @Override
  public long advance(String name, long n) {
    Record1<Long> row =
        PgTx.dsl()
            .update(SEQUENCE_COUNTERS)
            .set(SEQUENCE_COUNTERS.VALUE, SEQUENCE_COUNTERS.VALUE.plus(n))
            .where(SEQUENCE_COUNTERS.NAME.eq(name))
            .returningResult(SEQUENCE_COUNTERS.VALUE)
            .fetchOne();
    if (row == null) {
      throw BothyException.internal("counter row " + name + " is missing from sequence_counters");
    }
    return row.value1();
  }

  @Override
  public long current(String name) {
    Long value =
        PgTx.dsl()
            .select(SEQUENCE_COUNTERS.VALUE)
            .from(SEQUENCE_COUNTERS)
            .where(SEQUENCE_COUNTERS.NAME.eq(name))
            .fetchOne(SEQUENCE_COUNTERS.VALUE);
    if (value == null) {
      throw BothyException.internal("counter row " + name + " is missing from sequence_counters");
    }
    return value;
  }
}
