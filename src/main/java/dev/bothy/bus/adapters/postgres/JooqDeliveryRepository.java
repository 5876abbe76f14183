package dev.bothy.bus.adapters.postgres;

import static dev.bothy.db.Tables.EVENT_DELIVERIES;

import dev.bothy.bus.app.DeliveryRepository;
import dev.bothy.platform.pg.PgTx;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jooq.impl.DSL;

/** The store of {@code event_deliveries}, through the current unit's transaction. */
public final class JooqDeliveryRepository implements DeliveryRepository {
  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqDeliveryRepository() {}

  @Override
  public boolean insertIfAbsent(String handler, UUID eventId, Instant handledAt) {
    return PgTx.dsl()
            .insertInto(EVENT_DELIVERIES)
            .set(EVENT_DELIVERIES.HANDLER, handler)
            .set(EVENT_DELIVERIES.EVENT_ID, eventId)
            .set(EVENT_DELIVERIES.HANDLED_AT, handledAt.atOffset(ZoneOffset.UTC))
            .onConflictDoNothing()
            .execute()
        == 1;
  }

  @Override
  public boolean exists(String handler, UUID eventId) {
    return PgTx.dsl()
        .fetchExists(
            EVENT_DELIVERIES,
            EVENT_DELIVERIES.HANDLER.eq(handler).and(EVENT_DELIVERIES.EVENT_ID.eq(eventId)));
  }

  @Override
  public int deleteOlderThan(Instant before, int limit) {
    // One batch through the primary key: a DELETE has no LIMIT in PostgreSQL.
    return PgTx.dsl()
        .deleteFrom(EVENT_DELIVERIES)
        .where(
            DSL.row(EVENT_DELIVERIES.HANDLER, EVENT_DELIVERIES.EVENT_ID)
                .in(
                    DSL.select(EVENT_DELIVERIES.HANDLER, EVENT_DELIVERIES.EVENT_ID)
                        .from(EVENT_DELIVERIES)
                        .where(EVENT_DELIVERIES.HANDLED_AT.lt(before.atOffset(ZoneOffset.UTC)))
                        .limit(limit)))
        .execute();
  }

  @Override
  public int deleteAllOf(List<String> handlers) {
    return PgTx.dsl()
        .deleteFrom(EVENT_DELIVERIES)
        .where(EVENT_DELIVERIES.HANDLER.in(handlers))
        .execute();
  }
}
