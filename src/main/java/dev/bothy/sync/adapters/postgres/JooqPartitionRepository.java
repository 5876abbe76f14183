package dev.bothy.sync.adapters.postgres;

import static dev.bothy.db.Tables.EVENT_LOG;

import dev.bothy.platform.pg.PgTx;
import dev.bothy.sync.app.Partition;
import dev.bothy.sync.app.PartitionRepository;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * The partitions of {@code event_log}, read from the catalog and changed through the owner's
 * functions {@code bothy_event_log_create_partition} and {@code bothy_event_log_drop_partition}
 * (SECURITY DEFINER: the runtime role has no DDL rights of its own).
 */
public final class JooqPartitionRepository implements PartitionRepository {
  /** The advisory lock key of the partition maintenance. */
  static final long MAINTENANCE_LOCK_KEY = 0x626f7468795f706cL;

  private static final Pattern BOUNDS =
      Pattern.compile("FROM \\('?(\\d+)'?\\) TO \\('?(\\d+)'?\\)");

  // SQL text on purpose: pg_inherits and pg_class are catalog tables outside the generated model,
  // and jOOQ 3.19 has no type for the regclass cast that names the parent table.
  private static final String PARTITIONS =
      "select c.relname, pg_get_expr(c.relpartbound, c.oid) from pg_inherits i"
          + " join pg_class c on c.oid = i.inhrelid"
          + " where i.inhparent = 'public.event_log'::regclass";

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqPartitionRepository() {}

  @Override
  public boolean tryLockMaintenance() {
    return Boolean.TRUE.equals(
        PgTx.dsl()
            .select(
                DSL.function(
                    "pg_try_advisory_xact_lock", Boolean.class, DSL.val(MAINTENANCE_LOCK_KEY)))
            .fetchOne(0, Boolean.class));
  }

  @Override
  public List<Partition> partitions() {
    List<Partition> result = new ArrayList<>();
    for (Record2<String, String> row :
        PgTx.dsl()
            .resultQuery(PARTITIONS)
            .coerce(
                DSL.field(DSL.name("relname"), String.class),
                DSL.field(DSL.name("bound"), String.class))
            .fetch()) {
      Matcher m = BOUNDS.matcher(row.value2());
      if (m.find()) {
        result.add(
            new Partition(row.value1(), Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
      }
    }
    result.sort((a, b) -> Long.compare(a.from(), b.from()));
    return result;
  }

  @Override
  public Optional<Instant> newestEventAt(long from, long to) {
    OffsetDateTime newest =
        PgTx.dsl()
            .select(DSL.max(EVENT_LOG.OCCURRED_AT))
            .from(EVENT_LOG)
            .where(EVENT_LOG.SEQ.ge(from).and(EVENT_LOG.SEQ.lt(to)))
            .fetchOne(0, OffsetDateTime.class);
    return Optional.ofNullable(newest).map(OffsetDateTime::toInstant);
  }

  @Override
  public String create(long from, long to) {
    return PgTx.dsl()
        .select(
            DSL.function(
                "bothy_event_log_create_partition", String.class, DSL.val(from), DSL.val(to)))
        .fetchOne(0, String.class);
  }

  @Override
  public void drop(String name) {
    PgTx.dsl()
        .select(DSL.function("bothy_event_log_drop_partition", Object.class, DSL.val(name)))
        .fetch();
  }
}
