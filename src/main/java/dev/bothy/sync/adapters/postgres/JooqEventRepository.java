package dev.bothy.sync.adapters.postgres;

import static dev.bothy.db.Tables.EVENT_LOG;

import dev.bothy.db.tables.records.EventLogRecord;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.app.EventRepository;
import dev.bothy.sync.app.PendingEvent;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep8;
import org.jooq.JSONB;
import org.jooq.impl.DSL;

/** The event log in {@code event_log}. */
public final class JooqEventRepository implements EventRepository {
  /** The notification channel of committed events; the payload is the unit's last number. */
  public static final String CHANNEL = "event_log";

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqEventRepository() {}

  @Override
  public void insertAndNotify(long firstSeq, List<PendingEvent> events) {
    DSLContext dsl = PgTx.dsl();
    InsertValuesStep8<EventLogRecord, Long, UUID, String, OffsetDateTime, String, UUID, UUID, JSONB>
        insert =
            dsl.insertInto(
                EVENT_LOG,
                EVENT_LOG.SEQ,
                EVENT_LOG.ID,
                EVENT_LOG.TYPE,
                EVENT_LOG.OCCURRED_AT,
                EVENT_LOG.RESOURCE_TYPE,
                EVENT_LOG.RESOURCE_ID,
                EVENT_LOG.ACTOR_ID,
                EVENT_LOG.PAYLOAD);
    long seq = firstSeq;
    for (PendingEvent e : events) {
      insert =
          insert.values(
              seq++,
              e.id(),
              e.type(),
              e.occurredAt().atOffset(ZoneOffset.UTC),
              e.resource().type(),
              e.resource().id(),
              e.actorId().orElse(null),
              JSONB.valueOf(e.payloadJson()));
    }
    insert.execute();
    // pg_notify is a function jOOQ has no DSL for; PostgreSQL sends it only on commit.
    dsl.select(
            DSL.function(
                "pg_notify", Object.class, DSL.inline(CHANNEL), DSL.val(Long.toString(seq - 1))))
        .fetch();
  }

  @Override
  public long head() {
    return PgTx.dsl()
        .select(DSL.coalesce(DSL.max(EVENT_LOG.SEQ), 0L))
        .from(EVENT_LOG)
        .fetchOne(0, Long.class);
  }

  @Override
  public long minRetained() {
    return PgTx.dsl()
        .select(DSL.coalesce(DSL.min(EVENT_LOG.SEQ), 0L))
        .from(EVENT_LOG)
        .fetchOne(0, Long.class);
  }

  @Override
  public List<Event> readAfter(long afterSeq, int limit) {
    return PgTx.dsl()
        .selectFrom(EVENT_LOG)
        .where(EVENT_LOG.SEQ.gt(afterSeq))
        .orderBy(EVENT_LOG.SEQ)
        .limit(limit)
        .fetch(JooqEventRepository::toEvent);
  }

  private static Event toEvent(EventLogRecord row) {
    UUID actor = row.getActorId();
    return new Event(
        row.getSeq(),
        row.getId(),
        row.getType(),
        row.getOccurredAt().toInstant(),
        new ResourceRef(row.getResourceType(), row.getResourceId()),
        Optional.ofNullable(actor),
        row.getPayload().data(),
        Optional.ofNullable(row.getTraceparent()));
  }
}
