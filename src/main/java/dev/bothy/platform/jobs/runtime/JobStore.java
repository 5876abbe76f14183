package dev.bothy.platform.jobs.runtime;

import static dev.bothy.db.Tables.JOBS;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.jsonbObject;
import static org.jooq.impl.DSL.key;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectDistinct;
import static org.jooq.impl.DSL.val;
import static org.jooq.impl.DSL.when;

import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.RenderedQuery;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Every statement the job runtime sends, each run in the caller's unit of work ({@link PgTx#dsl()})
 * and written with jOOQ over the generated {@code JOBS} table, so a renamed or retyped column fails
 * the compile. The module README lists what each operation costs.
 */
final class JobStore {
  /** The NOTIFY channel of inserts; the payload is the queue. */
  static final String CHANNEL = "jobs_insert";

  /** The advisory lock of the maintenance (rescuer, cleaner, periodic jobs). */
  static final long MAINTENANCE_LOCK_KEY = 0x626f7468795f6a62L;

  // States are inlined as literals, never bound: the partial indexes (jobs_fetch, jobs_running,
  // jobs_finalized) serve a statement only when the planner sees their predicate, and a generic
  // plan of a prepared statement with bound states falls back to a scan of the whole table.
  private static final Condition RUNNING = JOBS.STATE.eq(state(JobState.RUNNING));
  // A running job that a statement names by id, said as "no other state" (the check
  // jobs_state_known leaves only running): the planner cannot match that to the predicate of the
  // partial index jobs_running, so it takes the primary key. With "state = 'running'" it scanned
  // jobs_running whenever the statistics counted no running job, and between two vacuums that
  // index holds an entry for every job that ran: thousands of pages per completion (D-WF-8).
  private static final Condition HELD =
      JOBS.STATE.notIn(
          Arrays.stream(JobState.values())
              .filter(s -> s != JobState.RUNNING)
              .map(JobStore::state)
              .toList());
  private static final Condition LAST_ATTEMPT = JOBS.ATTEMPT.ge(JOBS.MAX_ATTEMPTS);
  private static final Condition FETCHABLE =
      JOBS.STATE.in(
          state(JobState.AVAILABLE), state(JobState.SCHEDULED), state(JobState.RETRYABLE));

  // The fetch and the completion run for every job, rendered once (D-WF-1).
  private static final RenderedQuery FETCH =
      RenderedQuery.of(
          () ->
              DSL.update(JOBS)
                  .set(JOBS.STATE, state(JobState.RUNNING))
                  .set(JOBS.ATTEMPT, JOBS.ATTEMPT.plus(inline(1)))
                  .set(JOBS.ATTEMPTED_AT, DSL.param("now", JOBS.ATTEMPTED_AT))
                  .set(JOBS.ATTEMPTED_BY, DSL.param("clientId", JOBS.ATTEMPTED_BY))
                  .where(
                      JOBS.ID.in(
                          select(JOBS.ID)
                              .from(JOBS)
                              .where(JOBS.QUEUE.eq(DSL.param("queue", JOBS.QUEUE)))
                              .and(FETCHABLE)
                              .and(JOBS.SCHEDULED_AT.le(DSL.param("due", JOBS.SCHEDULED_AT)))
                              // The queue's fetch horizon (ADR 0030): the entries of the jobs
                              // fetched since the last vacuum lie before it, unread.
                              .and(JOBS.SCHEDULED_AT.ge(DSL.param("since", JOBS.SCHEDULED_AT)))
                              .orderBy(JOBS.PRIORITY, JOBS.SCHEDULED_AT, JOBS.ID)
                              .limit(DSL.param("limit", Integer.class))
                              .forUpdate()
                              .skipLocked()))
                  .returning(
                      JOBS.ID,
                      JOBS.KIND,
                      JOBS.ARGS,
                      JOBS.ATTEMPT,
                      JOBS.MAX_ATTEMPTS,
                      JOBS.SCHEDULED_AT));

  private static final RenderedQuery COMPLETE =
      RenderedQuery.of(() -> completion(DSL.noCondition()));

  // COMPLETE for given attempts: a job is completed only while the attempt its caller worked is
  // the one running (D-WF-16). The id's own condition keeps the primary key's index in use; the
  // pairs travel as "id:attempt" keys, so the statement stays one for any batch size.
  private static final RenderedQuery COMPLETE_ATTEMPTS =
      RenderedQuery.of(
          () ->
              completion(
                  JOBS.ID
                      .cast(SQLDataType.VARCHAR)
                      .concat(DSL.inline(":"))
                      .concat(JOBS.ATTEMPT.cast(SQLDataType.VARCHAR))
                      .eq(DSL.any(DSL.param("keys", SQLDataType.VARCHAR.array())))));

  /** Completes this client's running jobs among the ids that also meet {@code which}. */
  private static Query completion(Condition which) {
    return DSL.update(JOBS)
        .set(JOBS.STATE, state(JobState.COMPLETED))
        .set(JOBS.FINALIZED_AT, DSL.param("now", JOBS.FINALIZED_AT))
        .where(JOBS.ID.eq(DSL.any(DSL.param("ids", SQLDataType.UUID.array()))))
        .and(which)
        .and(HELD)
        .and(JOBS.ATTEMPTED_BY.eq(DSL.param("clientId", JOBS.ATTEMPTED_BY)))
        .returning(JOBS.ID);
  }

  // The oldest waiting job of a queue, the start of its fetch horizon (ADR 0030): per priority the
  // first entry of jobs_fetch, so each walks only that priority's entries of fetched jobs, once.
  private static final RenderedQuery OLDEST_WAITING =
      RenderedQuery.of(
          () -> {
            List<Field<OffsetDateTime>> firsts = new ArrayList<>();
            for (int p = JobKind.HIGHEST_PRIORITY; p <= JobKind.LOWEST_PRIORITY; p++) {
              firsts.add(
                  DSL.field(
                      select(JOBS.SCHEDULED_AT)
                          .from(JOBS)
                          .where(JOBS.QUEUE.eq(DSL.param("queue" + p, JOBS.QUEUE)))
                          .and(FETCHABLE)
                          .and(JOBS.PRIORITY.eq(inline((short) p)))
                          .orderBy(JOBS.SCHEDULED_AT)
                          .limit(inline(1))));
            }
            return select(
                DSL.least(firsts.get(0), firsts.subList(1, firsts.size()).toArray(new Field<?>[0]))
                    .as("oldest"));
          });

  /** The fetch's SQL; for plan tests. */
  static String fetchSql() {
    return FETCH.sql();
  }

  /** The completion's SQL, a {@code ?} for the time, the ids and the client; for plan tests. */
  static String completeSql() {
    return COMPLETE.sql();
  }

  // The insert of a batch of jobs, rendered once (D-BD-7): one array per column, so its text is the
  // same whatever the batch's size.
  private static final RenderedQuery INSERT = RenderedQuery.of(JobStore::insertTemplate);

  private static org.jooq.ResultQuery<Record2<UUID, String>> insertTemplate() {
    CommonTableExpression<Record3<UUID, String, String>> inserted =
        name("inserted")
            .as(
                DSL.insertInto(
                        JOBS,
                        JOBS.ID,
                        JOBS.KIND,
                        JOBS.QUEUE,
                        JOBS.ARGS,
                        JOBS.STATE,
                        JOBS.MAX_ATTEMPTS,
                        JOBS.PRIORITY,
                        JOBS.SCHEDULED_AT,
                        JOBS.CREATED_AT,
                        JOBS.UNIQUE_KEY)
                    .select(
                        select(
                            unnest("ids", UUID.class, SQLDataType.UUID),
                            unnest("kinds", String.class, SQLDataType.CLOB),
                            unnest("queues", String.class, SQLDataType.CLOB),
                            unnest("args", String.class, SQLDataType.CLOB).cast(SQLDataType.JSONB),
                            unnest("states", String.class, SQLDataType.CLOB),
                            unnest("maxAttempts", Integer.class, SQLDataType.INTEGER),
                            unnest("priorities", Short.class, SQLDataType.SMALLINT),
                            unnest(
                                "scheduled",
                                OffsetDateTime.class,
                                SQLDataType.TIMESTAMPWITHTIMEZONE(6)),
                            DSL.param("now", JOBS.CREATED_AT),
                            unnest("uniqueKeys", String.class, SQLDataType.CLOB)))
                    .onConflict(JOBS.KIND, JOBS.UNIQUE_KEY)
                    .where(JOBS.UNIQUE_KEY.isNotNull())
                    .doNothing()
                    .returningResult(JOBS.ID, JOBS.QUEUE, JOBS.STATE));
    Field<UUID> insertedId = inserted.field(JOBS.ID);
    Field<String> insertedQueue = inserted.field(JOBS.QUEUE);
    Field<String> insertedState = inserted.field(JOBS.STATE);
    // pg_notify runs in the same statement, once per queue; PostgreSQL sends it only on commit.
    Table<Record1<String>> woken =
        selectDistinct(insertedQueue)
            .from(inserted)
            .where(insertedState.eq(state(JobState.AVAILABLE)))
            .asTable("woken");
    Field<String> notified =
        DSL.function(
                "pg_notify",
                String.class,
                inline(CHANNEL),
                woken.field(insertedQueue.getName(), String.class))
            .cast(SQLDataType.CLOB);
    return DSL.with(inserted)
        .select(insertedId, DSL.castNull(SQLDataType.CLOB))
        .from(inserted)
        .unionAll(select(DSL.castNull(SQLDataType.UUID), notified).from(woken));
  }

  JobStore() {}

  /**
   * Inserts rows in one statement, skipping unique-key duplicates, and notifies {@link #CHANNEL}
   * once per queue that got an available job; returns the ids that were inserted.
   *
   * <p>The rows travel as one array per column (ten binds whatever the batch size, so a batch never
   * meets the protocol's bind limit), unnested side by side in the select list, which PostgreSQL
   * zips row by row. Reading element {@code i} of each array over {@code generate_series} instead
   * costs a parse of every array per row: 300 times slower at 1,000 rows.
   */
  Set<UUID> insert(List<NewJob> jobs, Instant now) {
    int n = jobs.size();
    UUID[] ids = new UUID[n];
    String[] kinds = new String[n];
    String[] queues = new String[n];
    String[] args = new String[n];
    String[] states = new String[n];
    Integer[] maxAttempts = new Integer[n];
    Short[] priorities = new Short[n];
    OffsetDateTime[] scheduled = new OffsetDateTime[n];
    String[] uniqueKeys = new String[n];
    for (int i = 0; i < n; i++) {
      NewJob j = jobs.get(i);
      ids[i] = j.id();
      kinds[i] = j.kind();
      queues[i] = j.queue();
      args[i] = j.args();
      states[i] = j.available() ? JobState.AVAILABLE.code() : JobState.SCHEDULED.code();
      maxAttempts[i] = j.maxAttempts();
      priorities[i] = (short) j.priority();
      scheduled[i] = utc(j.scheduledAt());
      uniqueKeys[i] = j.uniqueKey().orElse(null);
    }
    Map<String, Object> values = new HashMap<>();
    values.put("ids", ids);
    values.put("kinds", kinds);
    values.put("queues", queues);
    values.put("args", args);
    values.put("states", states);
    values.put("maxAttempts", maxAttempts);
    values.put("priorities", priorities);
    values.put("scheduled", scheduled);
    values.put("now", utc(now));
    values.put("uniqueKeys", uniqueKeys);
    Set<UUID> result = new HashSet<>();
    for (Record r : INSERT.fetch(PgTx.dsl(), values)) {
      UUID id = r.get(0, UUID.class);
      if (id != null) {
        result.add(id);
      }
    }
    return result;
  }

  /**
   * Moves up to {@code limit} due jobs of a queue whose due time is not before {@code since} (the
   * queue's fetch horizon, {@link FetchHorizon}) to running for this client.
   */
  List<FetchedJob> fetch(String queue, int limit, Instant now, String clientId, Instant since) {
    return FETCH
        .fetch(
            PgTx.dsl(),
            Map.of(
                "queue",
                queue,
                "limit",
                limit,
                "now",
                utc(now),
                "due",
                utc(now),
                "since",
                utc(since),
                "clientId",
                clientId))
        .map(
            r ->
                new FetchedJob(
                    r.get(JOBS.ID),
                    r.get(JOBS.KIND),
                    r.get(JOBS.ARGS).data(),
                    r.get(JOBS.ATTEMPT),
                    r.get(JOBS.MAX_ATTEMPTS),
                    r.get(JOBS.SCHEDULED_AT).toInstant()));
  }

  /**
   * The due time of the oldest fetchable job of a queue (available, scheduled or retryable, due or
   * not), of any priority; empty when none waits.
   */
  Optional<Instant> oldestWaiting(String queue) {
    Map<String, Object> values = new HashMap<>();
    for (int p = JobKind.HIGHEST_PRIORITY; p <= JobKind.LOWEST_PRIORITY; p++) {
      values.put("queue" + p, queue);
    }
    OffsetDateTime oldest =
        OLDEST_WAITING.fetch(PgTx.dsl(), values).get(0).get(0, OffsetDateTime.class);
    return Optional.ofNullable(oldest).map(OffsetDateTime::toInstant);
  }

  /** Completes this client's running jobs among {@code ids}; returns how many. */
  int complete(List<UUID> ids, Instant now, String clientId) {
    return COMPLETE.countRows(
        PgTx.dsl(), Map.of("ids", ids.toArray(UUID[]::new), "now", utc(now), "clientId", clientId));
  }

  /**
   * Completes this client's running jobs among {@code attempts} whose running attempt is the given
   * one; returns the ids it completed.
   *
   * @param attempts per job id, the attempt its caller worked
   */
  List<UUID> completeAttempts(Map<UUID, Integer> attempts, Instant now, String clientId) {
    UUID[] ids = attempts.keySet().toArray(UUID[]::new);
    String[] keys =
        attempts.entrySet().stream()
            .map(e -> e.getKey() + ":" + e.getValue())
            .toArray(String[]::new);
    return COMPLETE_ATTEMPTS
        .fetch(PgTx.dsl(), Map.of("ids", ids, "keys", keys, "now", utc(now), "clientId", clientId))
        .getValues(JOBS.ID.getName(), UUID.class);
  }

  /**
   * Records a failed attempt: retryable at {@code retryAt}, or discarded when it was the last.
   *
   * @return the new state, or empty when the job is no longer this client's running job
   */
  Optional<JobState> fail(
      UUID id, String clientId, Instant now, Instant retryAt, ErrorEntry error) {
    return PgTx.dsl()
        .update(JOBS)
        .set(
            JOBS.STATE,
            when(LAST_ATTEMPT, state(JobState.DISCARDED)).otherwise(state(JobState.RETRYABLE)))
        .set(JOBS.SCHEDULED_AT, when(LAST_ATTEMPT, JOBS.SCHEDULED_AT).otherwise(val(utc(retryAt))))
        .set(
            JOBS.FINALIZED_AT,
            when(LAST_ATTEMPT, val(utc(now))).otherwise(DSL.castNull(JOBS.FINALIZED_AT)))
        .set(JOBS.ERRORS, appendError(now, error))
        .where(JOBS.ID.eq(id))
        .and(HELD)
        .and(JOBS.ATTEMPTED_BY.eq(clientId))
        .returning(JOBS.STATE)
        .fetchOptional()
        .map(r -> JobState.fromCode(r.getState()));
  }

  /** Schedules a running job again at {@code at} without counting the attempt. */
  boolean snooze(UUID id, String clientId, Instant at) {
    return PgTx.dsl()
            .update(JOBS)
            .set(JOBS.STATE, state(JobState.SCHEDULED))
            .set(JOBS.ATTEMPT, JOBS.ATTEMPT.minus(1))
            .set(JOBS.SCHEDULED_AT, utc(at))
            .where(JOBS.ID.eq(id))
            .and(HELD)
            .and(JOBS.ATTEMPTED_BY.eq(clientId))
            .execute()
        == 1;
  }

  /** Cancels a running job at its work function's request. */
  boolean cancelByWork(UUID id, String clientId, Instant now, String reason) {
    return PgTx.dsl()
            .update(JOBS)
            .set(JOBS.STATE, state(JobState.CANCELLED))
            .set(JOBS.FINALIZED_AT, utc(now))
            .set(JOBS.ERRORS, appendError(now, new ErrorEntry("cancelled", "", reason)))
            .where(JOBS.ID.eq(id))
            .and(HELD)
            .and(JOBS.ATTEMPTED_BY.eq(clientId))
            .execute()
        == 1;
  }

  /** Hands this client's running jobs back as available, their attempt not counted. */
  int handBack(String clientId) {
    return PgTx.dsl()
        .update(JOBS)
        .set(JOBS.STATE, state(JobState.AVAILABLE))
        .set(JOBS.ATTEMPT, DSL.greatest(JOBS.ATTEMPT.minus(1), inline(0)))
        .setNull(JOBS.ATTEMPTED_BY)
        .where(RUNNING)
        .and(JOBS.ATTEMPTED_BY.eq(clientId))
        .execute();
  }

  /** Takes back jobs running since before {@code cutoff}. */
  int rescue(Instant now, Instant cutoff, String message) {
    return PgTx.dsl()
        .update(JOBS)
        .set(
            JOBS.STATE,
            when(LAST_ATTEMPT, state(JobState.DISCARDED)).otherwise(state(JobState.RETRYABLE)))
        .set(
            JOBS.FINALIZED_AT,
            when(LAST_ATTEMPT, val(utc(now))).otherwise(DSL.castNull(JOBS.FINALIZED_AT)))
        .set(JOBS.SCHEDULED_AT, utc(now))
        .setNull(JOBS.ATTEMPTED_BY)
        .set(JOBS.ERRORS, appendError(now, new ErrorEntry("rescued", "", message)))
        .where(RUNNING)
        .and(JOBS.ATTEMPTED_AT.lt(utc(cutoff)))
        .execute();
  }

  /** Deletes up to {@code limit} jobs in {@code states} finished before {@code before}. */
  int clean(List<JobState> states, Instant before, int limit) {
    List<Field<String>> codes = states.stream().map(JobStore::state).toList();
    return PgTx.dsl()
        .deleteFrom(JOBS)
        .where(
            JOBS.ID.in(
                select(JOBS.ID)
                    .from(JOBS)
                    .where(JOBS.STATE.in(codes))
                    .and(JOBS.FINALIZED_AT.lt(utc(before)))
                    .limit(limit)))
        .execute();
  }

  /** Takes the maintenance lock for the rest of the unit, or says another worker holds it. */
  boolean tryLockMaintenance() {
    return Boolean.TRUE.equals(
        PgTx.dsl()
            .select(
                DSL.function("pg_try_advisory_xact_lock", Boolean.class, val(MAINTENANCE_LOCK_KEY)))
            .fetchOne(0, Boolean.class));
  }

  // errors || [entry]: jsonb_insert after the last element appends to the history array.
  static Field<JSONB> appendError(Instant now, ErrorEntry error) {
    Field<JSONB> entry =
        jsonbObject(
            key("at").value(val(utc(now))),
            key("attempt").value(JOBS.ATTEMPT),
            key("kind").value(val(error.kind())),
            key("error").value(val(error.error())),
            key("message").value(val(error.message())));
    return DSL.function(
        "jsonb_insert",
        SQLDataType.JSONB,
        JOBS.ERRORS,
        val(new String[] {"-1"}),
        entry,
        inline(true));
  }

  // unnest(array) in the select list: several of them run in lockstep, one row per element.
  // unnest(array) in the select list: several of them run in lockstep, one row per element.
  private static <T> Field<T> unnest(String name, Class<T> type, DataType<T> element) {
    return DSL.function("unnest", type, DSL.param(name, element.array()));
  }

  /** A state as a literal of the statement, so a partial index can serve it. */
  static Field<String> state(JobState state) {
    return inline(state.code());
  }

  static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  /**
   * One error history entry as the statements bind it.
   *
   * @param kind exception, timeout, rescued or cancelled
   * @param error the exception class, or empty
   * @param message the message
   */
  record ErrorEntry(String kind, String error, String message) {}
}
