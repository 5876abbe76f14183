package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHooks;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.platform.jobs.InsertResult;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.platform.jobs.JobRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link JobInserter}: checks every insert against the registry, then writes them all with one
 * statement in the caller's unit, which also queues one {@code jobs_insert} notification per queue
 * with due jobs (PostgreSQL delivers it on commit and folds equal ones of a transaction).
 */
public final class JobInserterService implements JobInserter {
  private final UnitOfWork unitOfWork;
  private final JobRegistry registry;
  private final ArgsCodec codec;
  private final Clock clock;
  private final JobStore store = new JobStore();

  /** The jobs a unit queued with {@link #insertLater}, written by {@link #flushHook()}. */
  private static final TxKey<List<NewJob>> DEFERRED = TxKey.of("jobs.insert.deferred");

  /** The name of the flush hook in the {@code sync} phase. */
  public static final String FLUSH_HOOK = "jobs.insert";

  /**
   * Creates the inserter and registers its hook {@code jobs.insert} in the {@code sync} phase, so
   * jobs queued with {@link #insertLater} are always written before the unit commits. Create it
   * before the event log's hook is registered, so the write stays out of the {@code event_seq} lock
   * window.
   *
   * @param unitOfWork the unit of work whose current unit the inserts join
   * @param hooks the phase hooks of that unit of work
   * @param registry the kinds
   * @param codec writes args as JSON
   * @param clock decides which jobs are due now
   */
  public JobInserterService(
      UnitOfWork unitOfWork, PhaseHooks hooks, JobRegistry registry, ArgsCodec codec, Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.clock = Objects.requireNonNull(clock, "clock");
    hooks.register(Phase.SYNC, FLUSH_HOOK, this::flush);
  }

  @Override
  public InsertResult insertTx(Record... args) {
    return insertTx(Arrays.stream(args).map(JobInsert::of).toList());
  }

  @Override
  public InsertResult insertTx(List<JobInsert> inserts) {
    if (!unitOfWork.inUnit()) {
      throw BothyException.invalid(
          "jobs are inserted inside a unit of work, so they commit or roll back with it");
    }
    if (inserts.isEmpty()) {
      return new InsertResult(List.of());
    }
    Instant now = clock.now();
    List<NewJob> rows = rows(inserts, now);
    Set<UUID> inserted = store.insert(rows, now);
    List<Optional<UUID>> ids = new ArrayList<>(rows.size());
    for (NewJob row : rows) {
      ids.add(inserted.contains(row.id()) ? Optional.of(row.id()) : Optional.empty());
    }
    return new InsertResult(ids);
  }

  @Override
  public void insertLater(List<JobInsert> inserts) {
    if (!unitOfWork.inUnit() || unitOfWork.currentPhase() != Phase.WORK) {
      throw BothyException.invalid(
          "deferred jobs are queued in the work phase of a unit of work, which writes them"
              + " before it commits");
    }
    if (inserts.isEmpty()) {
      return;
    }
    List<NewJob> rows = rows(inserts, clock.now());
    unitOfWork.computeIfAbsent(DEFERRED, ArrayList::new).addAll(rows);
  }

  /** The phase hook {@code jobs.insert}: writes the jobs the unit queued, in one statement. */
  private void flush() {
    List<NewJob> rows = unitOfWork.get(DEFERRED).orElse(List.of());
    if (!rows.isEmpty()) {
      store.insert(List.copyOf(rows), clock.now());
      rows.clear();
    }
  }

  private List<NewJob> rows(List<JobInsert> inserts, Instant now) {
    List<NewJob> rows = new ArrayList<>(inserts.size());
    for (JobInsert insert : inserts) {
      JobRegistry.Registered<?> kind =
          registry
              .byArgs(insert.args())
              .orElseThrow(
                  () ->
                      BothyException.invalid(
                          "no job kind takes args of type " + insert.args().getClass().getName()));
      Instant at = insert.runAt().orElse(now);
      rows.add(
          new NewJob(
              Ids.newId(),
              kind.kind().name(),
              kind.kind().queue(),
              codec.encodeArgs(insert.args()),
              !at.isAfter(now),
              kind.maxAttempts(),
              insert.priority().orElse(kind.kind().priority()),
              at,
              insert.uniqueKey()));
    }
    return rows;
  }
}
