package dev.bothy.platform.jobs.runtime;

import dev.bothy.platform.jobs.JobError;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobView;
import dev.bothy.platform.jobs.QueueCount;
import dev.bothy.platform.pg.PgTx;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.Record;
import org.jooq.Result;

/**
 * Every statement the job runtime sends, each run in the caller's unit of work ({@link
 * PgTx#dsl()}). The module README lists what each operation costs.
 *
 * <p>The statements are plain SQL with bind values only: the batch insert and the fetch need {@code
 * unnest}, {@code ON CONFLICT ... WHERE}, {@code FOR UPDATE SKIP LOCKED} and {@code pg_notify}
 * together, and one style for all of them reads better than two.
 */
final class JobStore {
  /** The NOTIFY channel of inserts; the payload is the queue. */
  static final String CHANNEL = "jobs_insert";

  /** The advisory lock of the maintenance (rescuer, cleaner, periodic jobs). */
  static final long MAINTENANCE_LOCK_KEY = 0x626f7468795f6a62L;

  private static final String INSERT =
      "with inserted as (insert into jobs (id, kind, queue, args, state, max_attempts, priority,"
          + " scheduled_at, created_at, unique_key)"
          + " select i.id, i.kind, i.queue, i.args::jsonb, i.state, i.max_attempts, i.priority,"
          + " i.scheduled_at, ?::timestamptz, i.unique_key"
          + " from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[],"
          + " ?::smallint[], ?::timestamptz[], ?::text[])"
          + " as i(id, kind, queue, args, state, max_attempts, priority, scheduled_at, unique_key)"
          + " on conflict (kind, unique_key) where unique_key is not null do nothing"
          + " returning id, queue, state)"
          + " select id, null::text from inserted"
          + " union all select null, pg_notify('"
          + CHANNEL
          + "', q.queue)::text from (select distinct queue from inserted"
          + " where state = 'available') q";

  private static final String FETCH =
      "update jobs set state = 'running', attempt = attempt + 1, attempted_at = ?::timestamptz,"
          + " attempted_by = ? where id in (select id from jobs where queue = ?"
          + " and state in ('available', 'scheduled', 'retryable') and scheduled_at <= ?::timestamptz"
          + " order by priority, scheduled_at, id limit ? for update skip locked)"
          + " returning id, kind, args::text, attempt, max_attempts, scheduled_at";

  private static final String ERROR_ENTRY =
      "jsonb_build_array(jsonb_build_object('at', ?::timestamptz, 'attempt', attempt, 'kind', ?,"
          + " 'error', ?::text, 'message', ?::text))";

  private static final String COMPLETE =
      "update jobs set state = 'completed', finalized_at = ?::timestamptz"
          + " where id = any(?::uuid[]) and state = 'running' and attempted_by = ?";

  private static final String FAIL =
      "update jobs set state = case when attempt >= max_attempts then 'discarded' else 'retryable'"
          + " end, scheduled_at = case when attempt >= max_attempts then scheduled_at"
          + " else ?::timestamptz end, finalized_at = case when attempt >= max_attempts then"
          + " ?::timestamptz end, errors = errors || "
          + ERROR_ENTRY
          + " where id = ? and state = 'running' and attempted_by = ? returning state";

  private static final String SNOOZE =
      "update jobs set state = 'scheduled', attempt = attempt - 1, scheduled_at = ?::timestamptz"
          + " where id = ? and state = 'running' and attempted_by = ?";

  private static final String CANCEL_BY_WORK =
      "update jobs set state = 'cancelled', finalized_at = ?::timestamptz, errors = errors || "
          + ERROR_ENTRY
          + " where id = ? and state = 'running' and attempted_by = ?";

  private static final String HAND_BACK =
      "update jobs set state = 'available', attempt = greatest(attempt - 1, 0),"
          + " attempted_by = null where state = 'running' and attempted_by = ?";

  private static final String RESCUE =
      "update jobs set state = case when attempt >= max_attempts then 'discarded' else 'retryable'"
          + " end, finalized_at = case when attempt >= max_attempts then ?::timestamptz end,"
          + " scheduled_at = ?::timestamptz, attempted_by = null, errors = errors || "
          + ERROR_ENTRY
          + " where state = 'running' and attempted_at < ?::timestamptz";

  private static final String CLEAN =
      "delete from jobs where id in (select id from jobs where state = any(?::text[])"
          + " and finalized_at < ?::timestamptz limit ?)";

  private static final String COLUMNS =
      "id, kind, queue, state, attempt, max_attempts, priority, args::text, created_at,"
          + " scheduled_at, attempted_at, attempted_by, finalized_at, unique_key";

  private static final String ERRORS =
      "select j.id, e.at, e.attempt, e.kind, e.error, e.message from jobs j,"
          + " rows from (jsonb_to_recordset(j.errors)"
          + " as (at timestamptz, attempt int, kind text, error text, message text))"
          + " with ordinality as e(at, attempt, kind, error, message, ord)"
          + " where j.id = any(?::uuid[]) order by j.id, e.ord";

  JobStore() {}

  /** Inserts rows, skipping unique-key duplicates; returns the ids that were inserted. */
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
    Set<UUID> inserted = new HashSet<>();
    for (Record r :
        PgTx.dsl()
            .resultQuery(
                INSERT,
                utc(now),
                ids,
                kinds,
                queues,
                args,
                states,
                maxAttempts,
                priorities,
                scheduled,
                uniqueKeys)
            .fetch()) {
      UUID id = r.get(0, UUID.class);
      if (id != null) {
        inserted.add(id);
      }
    }
    return inserted;
  }

  /** Moves up to {@code limit} due jobs of a queue to running for this client. */
  List<FetchedJob> fetch(String queue, int limit, Instant now, String clientId) {
    List<FetchedJob> jobs = new ArrayList<>();
    for (Record r :
        PgTx.dsl().resultQuery(FETCH, utc(now), clientId, queue, utc(now), limit).fetch()) {
      jobs.add(
          new FetchedJob(
              r.get(0, UUID.class),
              r.get(1, String.class),
              r.get(2, String.class),
              r.get(3, Integer.class),
              r.get(4, Integer.class),
              r.get(5, OffsetDateTime.class).toInstant()));
    }
    return jobs;
  }

  /** Completes this client's running jobs among {@code ids}; returns how many. */
  int complete(List<UUID> ids, Instant now, String clientId) {
    return PgTx.dsl().query(COMPLETE, utc(now), ids.toArray(UUID[]::new), clientId).execute();
  }

  /**
   * Records a failed attempt: retryable at {@code retryAt}, or discarded when it was the last.
   *
   * @return the new state, or empty when the job is no longer this client's running job
   */
  Optional<JobState> fail(
      UUID id, String clientId, Instant now, Instant retryAt, ErrorEntry error) {
    Record r =
        PgTx.dsl()
            .resultQuery(
                FAIL,
                utc(retryAt),
                utc(now),
                utc(now),
                error.kind(),
                error.error(),
                error.message(),
                id,
                clientId)
            .fetchOne();
    return r == null ? Optional.empty() : Optional.of(JobState.fromCode(r.get(0, String.class)));
  }

  /** Schedules a running job again at {@code at} without counting the attempt. */
  boolean snooze(UUID id, String clientId, Instant at) {
    return PgTx.dsl().query(SNOOZE, utc(at), id, clientId).execute() == 1;
  }

  /** Cancels a running job at its work function's request. */
  boolean cancelByWork(UUID id, String clientId, Instant now, String reason) {
    return PgTx.dsl()
            .query(CANCEL_BY_WORK, utc(now), utc(now), "cancelled", "", reason, id, clientId)
            .execute()
        == 1;
  }

  /** Hands this client's running jobs back as available, their attempt not counted. */
  int handBack(String clientId) {
    return PgTx.dsl().query(HAND_BACK, clientId).execute();
  }

  /** Takes back jobs running since before {@code cutoff}. */
  int rescue(Instant now, Instant cutoff, String message) {
    return PgTx.dsl()
        .query(RESCUE, utc(now), utc(now), utc(now), "rescued", "", message, utc(cutoff))
        .execute();
  }

  /** Deletes up to {@code limit} jobs in {@code states} finished before {@code before}. */
  int clean(List<JobState> states, Instant before, int limit) {
    String[] codes = states.stream().map(JobState::code).toArray(String[]::new);
    return PgTx.dsl().query(CLEAN, codes, utc(before), limit).execute();
  }

  /** Takes the maintenance lock for the rest of the unit, or says another worker holds it. */
  boolean tryLockMaintenance() {
    return Boolean.TRUE.equals(
        PgTx.dsl()
            .resultQuery("select pg_try_advisory_xact_lock(?)", MAINTENANCE_LOCK_KEY)
            .fetchOne(0, Boolean.class));
  }

  /** Lists jobs, newest first. */
  List<JobView> list(Optional<JobState> state, Optional<String> kind, int limit) {
    Result<Record> rows =
        PgTx.dsl()
            .resultQuery(
                "select "
                    + COLUMNS
                    + " from jobs where (?::text is null or state = ?::text)"
                    + " and (?::text is null or kind = ?::text) order by id desc limit ?",
                state.map(JobState::code).orElse(null),
                state.map(JobState::code).orElse(null),
                kind.orElse(null),
                kind.orElse(null),
                limit)
            .fetch();
    return views(rows);
  }

  /** One job, locked for the rest of the unit when {@code forUpdate}. */
  Optional<JobView> find(UUID id, boolean forUpdate) {
    Result<Record> rows =
        PgTx.dsl()
            .resultQuery(
                "select " + COLUMNS + " from jobs where id = ?" + (forUpdate ? " for update" : ""),
                id)
            .fetch();
    return views(rows).stream().findFirst();
  }

  /** Makes a job available now with its attempts counted from zero. */
  void retry(UUID id, Instant now) {
    PgTx.dsl()
        .query(
            "update jobs set state = 'available', attempt = 0, scheduled_at = ?::timestamptz,"
                + " finalized_at = null, attempted_by = null where id = ?",
            utc(now),
            id)
        .execute();
  }

  /** Cancels a job that has not finished. */
  void cancel(UUID id, Instant now, String reason) {
    PgTx.dsl()
        .query(
            "update jobs set state = 'cancelled', finalized_at = ?::timestamptz,"
                + " attempted_by = null, errors = errors || "
                + ERROR_ENTRY
                + " where id = ?",
            utc(now),
            utc(now),
            "cancelled",
            "",
            reason,
            id)
        .execute();
  }

  /** Counts jobs by queue and state. */
  List<QueueCount> counts() {
    List<QueueCount> counts = new ArrayList<>();
    for (Record r :
        PgTx.dsl()
            .resultQuery(
                "select queue, state, count(*) from jobs group by queue, state order by 1, 2")
            .fetch()) {
      counts.add(
          new QueueCount(
              r.get(0, String.class),
              JobState.fromCode(r.get(1, String.class)),
              r.get(2, Long.class)));
    }
    return counts;
  }

  private List<JobView> views(Result<Record> rows) {
    if (rows.isEmpty()) {
      return List.of();
    }
    UUID[] ids = rows.stream().map(r -> r.get(0, UUID.class)).toArray(UUID[]::new);
    Map<UUID, List<JobError>> errors = new LinkedHashMap<>();
    for (Record e : PgTx.dsl().resultQuery(ERRORS, (Object) ids).fetch()) {
      errors
          .computeIfAbsent(e.get(0, UUID.class), k -> new ArrayList<>())
          .add(
              new JobError(
                  e.get(1, OffsetDateTime.class).toInstant(),
                  e.get(2, Integer.class),
                  e.get(3, String.class),
                  Optional.ofNullable(e.get(4, String.class)).orElse(""),
                  Optional.ofNullable(e.get(5, String.class)).orElse("")));
    }
    List<JobView> views = new ArrayList<>();
    for (Record r : rows) {
      UUID id = r.get(0, UUID.class);
      views.add(
          new JobView(
              id,
              r.get(1, String.class),
              r.get(2, String.class),
              JobState.fromCode(r.get(3, String.class)),
              r.get(4, Integer.class),
              r.get(5, Integer.class),
              r.get(6, Integer.class),
              r.get(7, String.class),
              r.get(8, OffsetDateTime.class).toInstant(),
              r.get(9, OffsetDateTime.class).toInstant(),
              Optional.ofNullable(r.get(10, OffsetDateTime.class)).map(OffsetDateTime::toInstant),
              Optional.ofNullable(r.get(11, String.class)),
              Optional.ofNullable(r.get(12, OffsetDateTime.class)).map(OffsetDateTime::toInstant),
              Optional.ofNullable(r.get(13, String.class)),
              errors.getOrDefault(id, List.of())));
    }
    return views;
  }

  private static OffsetDateTime utc(Instant instant) {
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
