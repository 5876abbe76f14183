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
import org.jooq.impl.DSL;

/** The event log in {@code event_log}. */
public final class JooqEventRepository implements EventRepository {
  /** The notification channel of committed events; the payload is the unit's last number. */
  public static final String CHANNEL = "event_log";

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqEventRepository() {}

  // One statement for the whole window after the counter lock: the rows travel as nine
  // arrays (unnest WITH ORDINALITY numbers them), and the data-modifying CTE runs before the
  // notification, which PostgreSQL sends only on commit. jOOQ has no DSL for pg_notify, so the
  // statement is plain SQL with bind values only.
  private static final String INSERT_AND_NOTIFY =
      "with inserted as (insert into event_log (seq, id, type, occurred_at, resource_type,"
          + " resource_id, actor_id, payload, traceparent)"
          + " select ? + e.ord - 1, e.id, e.type, e.occurred_at, e.resource_type, e.resource_id,"
          + " e.actor_id, e.payload::jsonb, e.traceparent"
          + " from unnest(?::uuid[], ?::text[], ?::timestamptz[], ?::text[], ?::uuid[],"
          + " ?::uuid[], ?::text[], ?::text[]) with ordinality"
          + " as e(id, type, occurred_at, resource_type, resource_id, actor_id, payload,"
          + " traceparent, ord)"
          + " returning seq)"
          + " select pg_notify('"
          + CHANNEL
          + "', ?), (select count(*) from inserted)";

  @Override
  public void insertAndNotify(long firstSeq, List<PendingEvent> events) {
    int n = events.size();
    UUID[] ids = new UUID[n];
    String[] types = new String[n];
    OffsetDateTime[] occurredAt = new OffsetDateTime[n];
    String[] resourceTypes = new String[n];
    UUID[] resourceIds = new UUID[n];
    UUID[] actors = new UUID[n];
    String[] payloads = new String[n];
    String[] traceparents = new String[n];
    for (int i = 0; i < n; i++) {
      PendingEvent e = events.get(i);
      ids[i] = e.id();
      types[i] = e.type();
      occurredAt[i] = e.occurredAt().atOffset(ZoneOffset.UTC);
      resourceTypes[i] = e.resource().type();
      resourceIds[i] = e.resource().id();
      actors[i] = e.actorId().orElse(null);
      payloads[i] = e.payloadJson();
      traceparents[i] = e.traceparent().orElse(null);
    }
    Long inserted =
        PgTx.dsl()
            .resultQuery(
                INSERT_AND_NOTIFY,
                firstSeq,
                ids,
                types,
                occurredAt,
                resourceTypes,
                resourceIds,
                actors,
                payloads,
                traceparents,
                Long.toString(firstSeq + n - 1))
            .fetchOne(1, Long.class);
    if (inserted == null || inserted != n) {
      throw new IllegalStateException(
          "event_log insert wrote " + inserted + " rows instead of " + n);
    }
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
