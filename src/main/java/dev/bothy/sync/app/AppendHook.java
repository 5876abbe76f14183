package dev.bothy.sync.app;

import dev.bothy.instance.CounterName;
import dev.bothy.instance.Counters;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.PhaseHook;
import dev.bothy.kernel.txn.UnitOfWork;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The sync phase hook {@code sync.append}: numbers the unit's buffered events from the {@code
 * event_seq} counter and writes them, as the last writes before commit.
 *
 * <p>The counter's row lock is held from {@link Counters#advance} until the commit, so numbers
 * follow commit order. The rows are encoded before the hook waits for its turn; after the lock it
 * sends one statement, the insert with the {@code pg_notify}, then the unit commits: that window is
 * the serialization point of the whole system (DESIGN.md section 11), and {@code
 * bothy_event_log_seq_lock_held_seconds} measures it. A unit with no events takes no lock.
 */
public final class AppendHook implements PhaseHook {
  /** The hook's registration name. */
  public static final String NAME = "sync.append";

  private final UnitOfWork unitOfWork;
  private final Counters counters;
  private final EventRepository repository;
  private final AppendMetrics metrics;
  private final Semaphore permits;
  private final Duration permitWait;

  /**
   * Creates the hook.
   *
   * @param unitOfWork the unit of work whose buffer it reads
   * @param counters the counters, for {@code event_seq}
   * @param repository the storage
   * @param metrics where committed appends are reported
   * @param maxConcurrentAppends {@code sync.maxConcurrentAppends}: units of this process that may
   *     hold or wait for the {@code event_seq} row at once; the others queue in the process, so the
   *     row's lock queue in PostgreSQL stays short
   * @param permitWait {@code database.lockTimeout}: the longest a unit queues for its turn
   */
  public AppendHook(
      UnitOfWork unitOfWork,
      Counters counters,
      EventRepository repository,
      AppendMetrics metrics,
      int maxConcurrentAppends,
      Duration permitWait) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.counters = Objects.requireNonNull(counters, "counters");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.permits = new Semaphore(maxConcurrentAppends, true);
    this.permitWait = Objects.requireNonNull(permitWait, "permitWait");
  }

  @Override
  public void run() {
    List<PendingEvent> buffer = unitOfWork.get(AppendService.BUFFER).orElse(List.of());
    if (buffer.isEmpty()) {
      return;
    }
    int n = buffer.size();
    // Encoded before the turn and the lock: only sending and storing the rows is serialized.
    EventRepository.PreparedInsert insert = repository.prepareInsert(buffer);
    acquireTurn();
    long last = counters.advance(CounterName.EVENT_SEQ, n);
    // Timed from the moment the lock is ours, so waiting for the row is not counted as holding.
    long locked = System.nanoTime();
    insert.insertAndNotify(last - n + 1);
    unitOfWork
        .get(AppendService.NUMBERING)
        .ifPresent(numbering -> numbering.numberedFrom(last - n + 1));
    // The lock lasts until the commit returns; the callback runs right after it.
    unitOfWork.afterCommit(() -> metrics.committed(n, System.nanoTime() - locked));
  }

  /**
   * Waits for one of the {@code sync.maxConcurrentAppends} turns; the turn is given back when the
   * unit ends, committed or rolled back. A waiter wakes only when a turn frees, instead of every
   * waiter on the row waking at each commit.
   */
  private void acquireTurn() {
    try {
      if (!permits.tryAcquire(permitWait.toNanos(), TimeUnit.NANOSECONDS)) {
        throw BothyException.unavailable(
            "no append turn within database.lockTimeout (sync.maxConcurrentAppends are busy)",
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BothyException.unavailable("interrupted while waiting for an append turn", e);
    }
    unitOfWork.onCompletion(permits::release);
  }
}
