package dev.bothy.sync.adapters.postgres;

import static dev.bothy.db.Tables.EVENT_CONSUMER_CURSORS;
import static dev.bothy.db.Tables.EVENT_LOG;

import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.app.ConsumerCursorRepository;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.impl.DSL;

/**
 * The store of {@code event_consumer_cursors}, written with jOOQ over the generated tables. The
 * reads of {@code event_log} here (the head for a new row, the oldest event after a cursor) read
 * every event without a permission filter, like the log tail: consumer jobs check the receiver's
 * permissions before they send.
 */
public final class JooqConsumerCursorRepository implements ConsumerCursorRepository {

  // The lock and the advance run in every round of every worker consumer, rendered once (D-BD-9):
  // built by jOOQ at each round they were, with the webhooks consumer's match, about a sixth of
  // a log transport worker's CPU.
  private static final RenderedQuery LOCK =
      RenderedQuery.of(
          () ->
              DSL.select(EVENT_CONSUMER_CURSORS.LAST_SEQ)
                  .from(EVENT_CONSUMER_CURSORS)
                  .where(
                      EVENT_CONSUMER_CURSORS.NAME.eq(
                          DSL.param("name", EVENT_CONSUMER_CURSORS.NAME)))
                  .forUpdate()
                  .skipLocked());

  private static final RenderedQuery ADVANCE =
      RenderedQuery.of(
          () ->
              DSL.update(EVENT_CONSUMER_CURSORS)
                  .set(
                      EVENT_CONSUMER_CURSORS.LAST_SEQ,
                      DSL.param("lastSeq", EVENT_CONSUMER_CURSORS.LAST_SEQ))
                  .set(EVENT_CONSUMER_CURSORS.UPDATED_AT, DSL.currentOffsetDateTime())
                  .where(
                      EVENT_CONSUMER_CURSORS.NAME.eq(
                          DSL.param("name", EVENT_CONSUMER_CURSORS.NAME)))
                  .returning(EVENT_CONSUMER_CURSORS.NAME));

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqConsumerCursorRepository() {}

  @Override
  public void ensureAtHead(ConsumerName name) {
    // A reader that sees seq = k sees every smaller number, and uncommitted units hold larger
    // ones, so max(seq) is a safe start: the consumer processes exactly what commits after it.
    PgTx.dsl()
        .insertInto(
            EVENT_CONSUMER_CURSORS, EVENT_CONSUMER_CURSORS.NAME, EVENT_CONSUMER_CURSORS.LAST_SEQ)
        .select(
            DSL.select(DSL.val(name.value()), DSL.coalesce(DSL.max(EVENT_LOG.SEQ), 0L))
                .from(EVENT_LOG))
        .onConflict(EVENT_CONSUMER_CURSORS.NAME)
        .doNothing()
        .execute();
  }

  @Override
  public OptionalLong lock(ConsumerName name) {
    // The name is the key: one row or none.
    Result<Record> rows = LOCK.fetch(PgTx.dsl(), Map.of("name", name.value()));
    return rows.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(rows.get(0).get(EVENT_CONSUMER_CURSORS.LAST_SEQ));
  }

  @Override
  public boolean exists(ConsumerName name) {
    return PgTx.dsl()
        .fetchExists(EVENT_CONSUMER_CURSORS, EVENT_CONSUMER_CURSORS.NAME.eq(name.value()));
  }

  @Override
  public int advance(ConsumerName name, long lastSeq) {
    return ADVANCE.countRows(PgTx.dsl(), Map.of("lastSeq", lastSeq, "name", name.value()));
  }

  @Override
  public List<Cursor> list() {
    return PgTx.dsl()
        .selectFrom(EVENT_CONSUMER_CURSORS)
        .orderBy(EVENT_CONSUMER_CURSORS.NAME)
        .fetch(
            r ->
                new Cursor(
                    new ConsumerName(r.getName()), r.getLastSeq(), r.getUpdatedAt().toInstant()));
  }

  @Override
  public Optional<Instant> oldestAfter(long afterSeq) {
    return PgTx.dsl()
        .select(EVENT_LOG.OCCURRED_AT)
        .from(EVENT_LOG)
        .where(EVENT_LOG.SEQ.gt(afterSeq))
        .orderBy(EVENT_LOG.SEQ)
        .limit(1)
        .fetchOptional(EVENT_LOG.OCCURRED_AT)
        .map(OffsetDateTime::toInstant);
  }
}
