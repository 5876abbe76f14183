package dev.bothy.bus.adapters.postgres;

import static dev.bothy.db.Tables.BUS_RELAY_CURSORS;
import static dev.bothy.db.Tables.EVENT_LOG;

import dev.bothy.bus.app.RelayCursorRepository;
import dev.bothy.platform.pg.PgTx;
import java.util.OptionalLong;
import org.jooq.impl.DSL;

/** The store of {@code bus_relay_cursors}, written with jOOQ over the generated tables. */
public final class JooqRelayCursorRepository implements RelayCursorRepository {

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqRelayCursorRepository() {}

  @Override
  public void ensureAtOldestRetained(String stream) {
    // min(seq) - 1: the relay carries every event the log still holds. Numbers below the minimum
    // are gone for every reader; units in flight get numbers above the head. An empty log writes
    // nothing: its next number is not known here (retention may have emptied a log whose counter
    // is far from 0), so the row waits for the first event.
    PgTx.dsl()
        .insertInto(BUS_RELAY_CURSORS, BUS_RELAY_CURSORS.STREAM, BUS_RELAY_CURSORS.LAST_SEQ)
        .select(
            DSL.select(DSL.val(stream), DSL.min(EVENT_LOG.SEQ).minus(1L))
                .from(EVENT_LOG)
                .having(DSL.count().gt(0)))
        .onConflict(BUS_RELAY_CURSORS.STREAM)
        .doNothing()
        .execute();
  }

  @Override
  public OptionalLong read(String stream) {
    Long lastSeq =
        PgTx.dsl()
            .select(BUS_RELAY_CURSORS.LAST_SEQ)
            .from(BUS_RELAY_CURSORS)
            .where(BUS_RELAY_CURSORS.STREAM.eq(stream))
            .fetchOne(BUS_RELAY_CURSORS.LAST_SEQ);
    return lastSeq == null ? OptionalLong.empty() : OptionalLong.of(lastSeq);
  }

  @Override
  public boolean compareAndSet(String stream, long expected, long next) {
    return PgTx.dsl()
            .update(BUS_RELAY_CURSORS)
            .set(BUS_RELAY_CURSORS.LAST_SEQ, next)
            .set(BUS_RELAY_CURSORS.UPDATED_AT, DSL.currentOffsetDateTime())
            .where(BUS_RELAY_CURSORS.STREAM.eq(stream))
            .and(BUS_RELAY_CURSORS.LAST_SEQ.eq(expected))
            .execute()
        == 1;
  }
}
