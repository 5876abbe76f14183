package dev.bothy.platform.jobs.runtime;

import static dev.bothy.db.Tables.JOBS;
import static dev.bothy.platform.jobs.runtime.JobStore.appendError;
import static dev.bothy.platform.jobs.runtime.JobStore.utc;
import static org.jooq.impl.DSL.generateSeries;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.jsonbGetAttributeAsText;
import static org.jooq.impl.DSL.jsonbGetElement;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.val;

import dev.bothy.db.tables.records.JobsRecord;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobActivity;
import dev.bothy.platform.jobs.JobError;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.platform.jobs.QueueCount;
import dev.bothy.platform.pg.PgTx;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The operator's reads and changes of {@code jobs} (the {@code jobs} command): list, show with the
 * error history, retry, cancel and counts, each in the caller's unit of work and written with jOOQ
 * over the generated {@code JOBS} table.
 */
final class JobAdminStore {
  JobAdminStore() {}

  /** Lists jobs, newest first. */
  List<JobView> list(Optional<JobState> state, Optional<String> kind, int limit) {
    return page(state, kind, Optional.empty(), limit);
  }

  /** One page below a keyset cursor, newest first. */
  List<JobView> page(
      Optional<JobState> state, Optional<String> kind, Optional<UUID> before, int limit) {
    Condition where = filter(state, kind);
    if (before.isPresent()) {
      where = where.and(JOBS.ID.lt(before.get()));
    }
    return views(
        PgTx.dsl().selectFrom(JOBS).where(where).orderBy(JOBS.ID.desc()).limit(limit).fetch());
  }

  /** {@code count(*)} over a {@code LIMIT limit} subquery: at most {@code limit} rows are read. */
  long countUpTo(Optional<JobState> state, Optional<String> kind, int limit) {
    Table<?> bounded =
        PgTx.dsl()
            .select(inline(1).as("one"))
            .from(JOBS)
            .where(filter(state, kind))
            .limit(limit)
            .asTable("bounded");
    return PgTx.dsl().selectCount().from(bounded).fetchSingle().value1();
  }

  /**
   * Three counts over ranges of the primary key and of {@code jobs_finalized}, in one statement.
   */
  JobActivity activity(Instant from, Instant to) {
    Field<Integer> created =
        DSL.selectCount()
            .from(JOBS)
            .where(JOBS.ID.ge(Ids.lowestAt(from)).and(JOBS.ID.lt(Ids.lowestAt(to))))
            .asField("created");
    return PgTx.dsl()
        .select(
            created,
            finalized(JobState.COMPLETED, from, to),
            finalized(JobState.DISCARDED, from, to))
        .fetchSingle(r -> new JobActivity(r.value1(), r.value2(), r.value3()));
  }

  private static Field<Integer> finalized(JobState state, Instant from, Instant to) {
    return DSL.selectCount()
        .from(JOBS)
        .where(JOBS.STATE.eq(JobStore.state(state)))
        .and(JOBS.FINALIZED_AT.ge(utc(from)))
        .and(JOBS.FINALIZED_AT.lt(utc(to)))
        .asField(state.code());
  }

  private static Condition filter(Optional<JobState> state, Optional<String> kind) {
    Condition where = DSL.noCondition();
    if (state.isPresent()) {
      where = where.and(JOBS.STATE.eq(JobStore.state(state.get())));
    }
    if (kind.isPresent()) {
      where = where.and(JOBS.KIND.eq(kind.get()));
    }
    return where;
  }

  /** One job, locked for the rest of the unit when {@code forUpdate}. */
  Optional<JobView> find(UUID id, boolean forUpdate) {
    var query = PgTx.dsl().selectFrom(JOBS).where(JOBS.ID.eq(id));
    return views(forUpdate ? query.forUpdate().fetch() : query.fetch()).stream().findFirst();
  }

  /** Makes a job available now with its attempts counted from zero. */
  void retry(UUID id, Instant now) {
    PgTx.dsl()
        .update(JOBS)
        .set(JOBS.STATE, JobStore.state(JobState.AVAILABLE))
        .set(JOBS.ATTEMPT, 0)
        .set(JOBS.SCHEDULED_AT, utc(now))
        .setNull(JOBS.FINALIZED_AT)
        .setNull(JOBS.ATTEMPTED_BY)
        .where(JOBS.ID.eq(id))
        .execute();
  }

  /** Cancels a job that has not finished. */
  void cancel(UUID id, Instant now, String reason) {
    PgTx.dsl()
        .update(JOBS)
        .set(JOBS.STATE, JobStore.state(JobState.CANCELLED))
        .set(JOBS.FINALIZED_AT, utc(now))
        .setNull(JOBS.ATTEMPTED_BY)
        .set(JOBS.ERRORS, appendError(now, new JobStore.ErrorEntry("cancelled", "", reason)))
        .where(JOBS.ID.eq(id))
        .execute();
  }

  /** Counts jobs by queue and state. */
  List<QueueCount> counts() {
    return PgTx.dsl()
        .select(JOBS.QUEUE, JOBS.STATE, DSL.count())
        .from(JOBS)
        .groupBy(JOBS.QUEUE, JOBS.STATE)
        .orderBy(JOBS.QUEUE, JOBS.STATE)
        .fetch(r -> new QueueCount(r.value1(), JobState.fromCode(r.value2()), r.value3()));
  }

  private List<JobView> views(List<JobsRecord> rows) {
    if (rows.isEmpty()) {
      return List.of();
    }
    Map<UUID, List<JobError>> errors =
        errorHistories(rows.stream().map(JobsRecord::getId).toList());
    List<JobView> views = new ArrayList<>();
    for (JobsRecord r : rows) {
      views.add(
          new JobView(
              r.getId(),
              r.getKind(),
              r.getQueue(),
              JobState.fromCode(r.getState()),
              r.getAttempt(),
              r.getMaxAttempts(),
              r.getPriority().intValue(),
              r.getArgs().data(),
              r.getCreatedAt().toInstant(),
              r.getScheduledAt().toInstant(),
              Optional.ofNullable(r.getAttemptedAt()).map(OffsetDateTime::toInstant),
              Optional.ofNullable(r.getAttemptedBy()),
              Optional.ofNullable(r.getFinalizedAt()).map(OffsetDateTime::toInstant),
              Optional.ofNullable(r.getUniqueKey()),
              errors.getOrDefault(r.getId(), List.of())));
    }
    return views;
  }

  // The entries are read by PostgreSQL, one row per element in array order, so the module needs no
  // JSON library: element k of errors for k in 0 .. jsonb_array_length(errors) - 1.
  private static Map<UUID, List<JobError>> errorHistories(List<UUID> ids) {
    Table<Record1<Integer>> positions =
        lateral(
                generateSeries(
                    inline(0),
                    DSL.function("jsonb_array_length", Integer.class, JOBS.ERRORS).minus(1)))
            .as("e", "k");
    Field<Integer> k = positions.field(0, Integer.class);
    Field<JSONB> entry = jsonbGetElement(JOBS.ERRORS, k);
    Map<UUID, List<JobError>> errors = new LinkedHashMap<>();
    PgTx.dsl()
        .select(
            JOBS.ID,
            jsonbGetAttributeAsText(entry, "at").cast(SQLDataType.TIMESTAMPWITHTIMEZONE),
            jsonbGetAttributeAsText(entry, "attempt").cast(SQLDataType.INTEGER),
            jsonbGetAttributeAsText(entry, "kind"),
            jsonbGetAttributeAsText(entry, "error"),
            jsonbGetAttributeAsText(entry, "message"))
        .from(JOBS)
        .crossJoin(positions)
        .where(JOBS.ID.eq(DSL.any(val(ids.toArray(UUID[]::new)))))
        .orderBy(JOBS.ID, k)
        .forEach(
            e ->
                errors
                    .computeIfAbsent(e.value1(), id -> new ArrayList<>())
                    .add(
                        new JobError(
                            e.value2().toInstant(),
                            e.value3(),
                            e.value4(),
                            Optional.ofNullable(e.value5()).orElse(""),
                            Optional.ofNullable(e.value6()).orElse(""))));
    return errors;
  }
}
