package dev.bothy.sync.adapters.postgres;

import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.app.ConsumerCursorRepository;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.Record;

/**
 * The store of {@code event_consumer_cursors}. The reads of {@code event_log} here (the head for a
 * new row, the oldest event after a cursor) read every event without a permission filter, like the
 * log tail: consumer jobs check the receiver's permissions before they send.
 */
public final class JooqConsumerCursorRepository implements ConsumerCursorRepository {
  // A reader that sees seq = k sees every smaller number, and uncommitted units hold larger ones,
  // so max(seq) is a safe start: the consumer processes exactly what commits after it.
  private static final String ENSURE =
      "insert into event_consumer_cursors (name, last_seq)"
          + " select ?, coalesce(max(seq), 0) from event_log on conflict (name) do nothing";

  private static final String LOCK =
      "select last_seq from event_consumer_cursors where name = ? for update skip locked";

  private static final String ADVANCE =
      "update event_consumer_cursors set last_seq = ?, updated_at = now() where name = ?";

  private static final String LIST =
      "select name, last_seq, updated_at from event_consumer_cursors order by name";

  private static final String OLDEST_AFTER =
      "select occurred_at from event_log where seq > ? order by seq limit 1";

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqConsumerCursorRepository() {}

  @Override
  public void ensureAtHead(ConsumerName name) {
    PgTx.dsl().query(ENSURE, name.value()).execute();
  }

  @Override
  public OptionalLong lock(ConsumerName name) {
    Record r = PgTx.dsl().resultQuery(LOCK, name.value()).fetchOne();
    return r == null ? OptionalLong.empty() : OptionalLong.of(r.get(0, Long.class));
  }

  @Override
  public boolean exists(ConsumerName name) {
    return PgTx.dsl()
            .resultQuery("select 1 from event_consumer_cursors where name = ?", name.value())
            .fetchOne()
        != null;
  }

  @Override
  public int advance(ConsumerName name, long lastSeq) {
    return PgTx.dsl().query(ADVANCE, lastSeq, name.value()).execute();
  }

  @Override
  public List<Cursor> list() {
    List<Cursor> cursors = new ArrayList<>();
    for (Record r : PgTx.dsl().resultQuery(LIST).fetch()) {
      cursors.add(
          new Cursor(
              new ConsumerName(r.get(0, String.class)),
              r.get(1, Long.class),
              r.get(2, OffsetDateTime.class).toInstant()));
    }
    return cursors;
  }

  @Override
  public Optional<Instant> oldestAfter(long afterSeq) {
    Record r = PgTx.dsl().resultQuery(OLDEST_AFTER, afterSeq).fetchOne();
    return r == null ? Optional.empty() : Optional.of(r.get(0, OffsetDateTime.class).toInstant());
  }
}
