package dev.bothy.sync.app;

import dev.bothy.instance.CounterName;
import dev.bothy.instance.Counters;
import dev.bothy.kernel.txn.PhaseHook;
import dev.bothy.kernel.txn.UnitOfWork;
import java.util.List;
import java.util.Objects;

/**
 * The sync phase hook {@code sync.append}: numbers the unit's buffered events from the {@code
 * event_seq} counter and writes them, as the last writes before commit.
 *
 * <p>The counter's row lock is held from {@link Counters#advance} until the commit, so numbers
 * follow commit order. After it the hook sends one statement, the insert with the {@code
 * pg_notify}, then the unit commits: that window is the serialization point of the whole system
 * (DESIGN.md section 11), and {@code bothy_event_log_seq_lock_held} measures it. A unit with no
 * events takes no lock.
 */
public final class AppendHook implements PhaseHook {
  /** The hook's registration name. */
  public static final String NAME = "sync.append";

  private final UnitOfWork unitOfWork;
  private final Counters counters;
  private final EventRepository repository;
  private final AppendMetrics metrics;

  /**
   * Creates the hook.
   *
   * @param unitOfWork the unit of work whose buffer it reads
   * @param counters the counters, for {@code event_seq}
   * @param repository the storage
   * @param metrics where committed appends are reported
   */
  public AppendHook(
      UnitOfWork unitOfWork, Counters counters, EventRepository repository, AppendMetrics metrics) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.counters = Objects.requireNonNull(counters, "counters");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public void run() {
    List<PendingEvent> buffer = unitOfWork.get(AppendService.BUFFER).orElse(List.of());
    if (buffer.isEmpty()) {
      return;
    }
    int n = buffer.size();
    long last = counters.advance(CounterName.EVENT_SEQ, n);
    // Timed from the moment the lock is ours, so waiting for the row is not counted as holding.
    long locked = System.nanoTime();
    repository.insertAndNotify(last - n + 1, buffer);
    // The lock lasts until the commit returns; the callback runs right after it.
    unitOfWork.afterCommit(() -> metrics.committed(n, System.nanoTime() - locked));
  }
}
