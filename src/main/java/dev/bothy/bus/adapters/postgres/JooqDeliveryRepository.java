package dev.bothy.bus.adapters.postgres;

import static dev.bothy.db.Tables.BUS_DEAD_LETTERS;
import static dev.bothy.db.Tables.EVENT_DELIVERIES;

import dev.bothy.bus.app.DeliveryRepository;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.impl.DSL;

/** The store of {@code event_deliveries}, through the current unit's transaction. */
public final class JooqDeliveryRepository implements DeliveryRepository {
  // Once per delivery of every event to every handler: one statement (D-NC-3), rendered once
  // (D-WF-1) and run through JDBC (D-NC-7). A parameter is named once per use (RenderedQuery's
  // rule).
  private static final RenderedQuery CLAIM =
      RenderedQuery.of(
          () ->
              DSL.insertInto(
                      EVENT_DELIVERIES,
                      EVENT_DELIVERIES.HANDLER,
                      EVENT_DELIVERIES.EVENT_ID,
                      EVENT_DELIVERIES.HANDLED_AT)
                  .select(
                      DSL.select(
                              DSL.param("handler", EVENT_DELIVERIES.HANDLER),
                              DSL.param("eventId", EVENT_DELIVERIES.EVENT_ID),
                              DSL.param("handledAt", EVENT_DELIVERIES.HANDLED_AT))
                          .whereNotExists(
                              DSL.selectOne()
                                  .from(BUS_DEAD_LETTERS)
                                  .where(
                                      BUS_DEAD_LETTERS
                                          .HANDLER
                                          .eq(DSL.param("letterHandler", BUS_DEAD_LETTERS.HANDLER))
                                          .and(
                                              BUS_DEAD_LETTERS.EVENT_ID.eq(
                                                  DSL.param(
                                                      "letterEventId", BUS_DEAD_LETTERS.EVENT_ID)))
                                          .and(BUS_DEAD_LETTERS.REPLAYED_AT.isNull()))))
                  .onConflictDoNothing()
                  .returning(EVENT_DELIVERIES.HANDLER));

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqDeliveryRepository() {}

  @Override
  public boolean claim(String handler, UUID eventId, Instant handledAt) {
    return CLAIM.countRows(
            PgTx.dsl(),
            Map.of(
                "handler",
                handler,
                "eventId",
                eventId,
                "handledAt",
                handledAt.atOffset(ZoneOffset.UTC),
                "letterHandler",
                handler,
                "letterEventId",
                eventId))
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
