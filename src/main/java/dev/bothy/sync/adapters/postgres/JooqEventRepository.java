package dev.bothy.sync.adapters.postgres;

import static dev.bothy.db.Tables.EVENT_LOG;

import dev.bothy.platform.pg.PgArrayLiteral;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.app.EventRepository;
import dev.bothy.sync.app.PendingEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The event log in {@code event_log}. */
public final class JooqEventRepository implements EventRepository {
  // Every consumer round and every webhook delivery reads through it: rendered once (D-WF-1).
  private static final RenderedQuery READ_AFTER =
      RenderedQuery.of(
          () ->
              DSL.selectFrom(EVENT_LOG)
                  .where(EVENT_LOG.SEQ.gt(DSL.param("after", EVENT_LOG.SEQ)))
                  .orderBy(EVENT_LOG.SEQ)
                  .limit(DSL.param("limit", Integer.class)));

  // The events of a batch of webhook deliveries (D-WB-1): the numbers travel as one array, so the
  // SQL is the same whatever their count.
  private static final RenderedQuery READ_NUMBERS =
      RenderedQuery.of(
          () ->
              DSL.selectFrom(EVENT_LOG)
                  .where(EVENT_LOG.SEQ.eq(DSL.any(DSL.param("seqs", SQLDataType.BIGINT.array()))))
                  .orderBy(EVENT_LOG.SEQ));

  /** The notification channel of committed events; the payload is the unit's last number. */
  public static final String CHANNEL = "event_log";

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqEventRepository() {}

  // SQL text on purpose: this is the whole window after the event_seq lock, one statement. The
  // rows travel as eight array literals built before the lock (PgArrayLiteral) and are numbered by
  // a multi-argument unnest WITH ORDINALITY, which jOOQ 3.19 cannot express; the data-modifying
  // CTE runs before the notification, which PostgreSQL sends only on commit. A jOOQ rendering of
  // the same statement would also add CPU inside the lock window (docs/benchmarks.md, append).
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
  public PreparedInsert prepareInsert(List<PendingEvent> events) {
    // The literals are built here, before the caller takes the event_seq lock, so every
    // other appending unit waits only for the rows to travel and be stored, not encoded.
    int n = events.size();
    PgArrayLiteral ids = new PgArrayLiteral(n);
    PgArrayLiteral types = new PgArrayLiteral(n);
    PgArrayLiteral occurredAt = new PgArrayLiteral(n);
    PgArrayLiteral resourceTypes = new PgArrayLiteral(n);
    PgArrayLiteral resourceIds = new PgArrayLiteral(n);
    PgArrayLiteral actors = new PgArrayLiteral(n);
    PgArrayLiteral payloads = new PgArrayLiteral(n);
    PgArrayLiteral traceparents = new PgArrayLiteral(n);
    for (PendingEvent e : events) {
      ids.add(e.id());
      types.add(e.type());
      occurredAt.add(e.occurredAt());
      resourceTypes.add(e.resource().type());
      resourceIds.add(e.resource().id());
      actors.add(e.actorId().orElse(null));
      payloads.add(e.payloadJson());
      traceparents.add(e.traceparent().orElse(null));
    }
    Object[] binds = {
      null,
      ids.toString(),
      types.toString(),
      occurredAt.toString(),
      resourceTypes.toString(),
      resourceIds.toString(),
      actors.toString(),
      payloads.toString(),
      traceparents.toString(),
      null
    };
    return firstSeq -> {
      Object[] numbered = binds.clone();
      numbered[0] = firstSeq;
      numbered[numbered.length - 1] = Long.toString(firstSeq + n - 1);
      Long inserted = PgTx.dsl().resultQuery(INSERT_AND_NOTIFY, numbered).fetchOne(1, Long.class);
      if (inserted == null || inserted != n) {
        throw new IllegalStateException(
            "event_log insert wrote " + inserted + " rows instead of " + n);
      }
    };
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
    return READ_AFTER
        .fetch(PgTx.dsl(), Map.of("after", afterSeq, "limit", limit))
        .map(JooqEventRepository::toEvent);
  }

  @Override
  public List<Event> readNumbers(long[] seqs) {
    Long[] boxed = new Long[seqs.length];
    for (int i = 0; i < seqs.length; i++) {
      boxed[i] = seqs[i];
    }
    return READ_NUMBERS.fetch(PgTx.dsl(), Map.of("seqs", boxed)).map(JooqEventRepository::toEvent);
  }

  @Override
  public Map<UUID, Long> numbersOf(List<UUID> ids, long afterSeq) {
    Map<UUID, Long> found = new HashMap<>();
    // Ordered by seq with a limit: the primary key index is read forward from afterSeq and the
    // read stops at the last id looked for, a few units after afterSeq.
    PgTx.dsl()
        .select(EVENT_LOG.ID, EVENT_LOG.SEQ)
        .from(EVENT_LOG)
        .where(EVENT_LOG.SEQ.gt(afterSeq))
        .and(EVENT_LOG.ID.in(ids))
        .orderBy(EVENT_LOG.SEQ)
        .limit(ids.size())
        .forEach(r -> found.put(r.value1(), r.value2()));
    return found;
  }

  // The row of a RenderedQuery has the template's fields, EVENT_LOG's: read them as they are.
  private static Event toEvent(Record row) {
    UUID actor = row.get(EVENT_LOG.ACTOR_ID);
    return new Event(
        row.get(EVENT_LOG.SEQ),
        row.get(EVENT_LOG.ID),
        row.get(EVENT_LOG.TYPE),
        row.get(EVENT_LOG.OCCURRED_AT).toInstant(),
        new ResourceRef(row.get(EVENT_LOG.RESOURCE_TYPE), row.get(EVENT_LOG.RESOURCE_ID)),
        Optional.ofNullable(actor),
        row.get(EVENT_LOG.PAYLOAD).data(),
        Optional.ofNullable(row.get(EVENT_LOG.TRACEPARENT)));
  }
}
