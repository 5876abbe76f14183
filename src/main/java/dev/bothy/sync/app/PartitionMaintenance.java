package dev.bothy.sync.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the partitions of {@code event_log}: at least {@code sync.partitionsAhead} partitions of
 * {@code sync.eventLogPartitionSize} numbers beyond the head, and drops, oldest first, the
 * partitions whose newest event is older than {@code sync.eventRetention}.
 *
 * <p>Drops stop at the first partition that must stay, and never touch the partition holding the
 * head: the log only ever loses its oldest numbers, so a reader below the minimum is told to resync
 * and a hole anywhere else stays a bug. One run is one unit of work holding a transaction-level
 * advisory lock: when two workers run at once, one does the work and the other skips. Detaching
 * waits for readers at most {@code database.lockTimeout}; then the unit fails and the next run
 * tries again.
 */
public final class PartitionMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionMaintenance.class);

  /** What one run did. */
  public record Result(boolean ran, List<String> created, List<String> dropped) {
    /** Copies the lists. */
    public Result {
      created = List.copyOf(created);
      dropped = List.copyOf(dropped);
    }
  }

  private final UnitOfWork unitOfWork;
  private final PartitionRepository partitions;
  private final EventRepository events;
  private final Clock clock;
  private final long partitionSize;
  private final int partitionsAhead;
  private final Duration retention;

  /**
   * Creates the maintenance.
   *
   * @param unitOfWork runs each run as one unit
   * @param partitions the partition storage
   * @param events the log, for its head
   * @param clock the time the retention counts from
   * @param partitionSize {@code sync.eventLogPartitionSize}
   * @param partitionsAhead {@code sync.partitionsAhead}
   * @param retention {@code sync.eventRetention}
   */
  public PartitionMaintenance(
      UnitOfWork unitOfWork,
      PartitionRepository partitions,
      EventRepository events,
      Clock clock,
      long partitionSize,
      int partitionsAhead,
      Duration retention) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.partitions = Objects.requireNonNull(partitions, "partitions");
    this.events = Objects.requireNonNull(events, "events");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.partitionSize = partitionSize;
    this.partitionsAhead = partitionsAhead;
    this.retention = Objects.requireNonNull(retention, "retention");
  }

  /**
   * Runs once.
   *
   * @return what it created and dropped; {@code ran} is false when another run held the lock
   */
  public Result run() {
    Result result = unitOfWork.run(this::runInUnit);
    if (!result.created().isEmpty() || !result.dropped().isEmpty()) {
      LOG.info(
          "event log partitions maintained: created={} dropped={}",
          result.created(),
          result.dropped());
    }
    return result;
  }

  private Result runInUnit() {
    if (!partitions.tryLockMaintenance()) {
      return new Result(false, List.of(), List.of());
    }
    long head = events.head();
    List<Partition> existing = partitions.partitions();
    List<String> created = new ArrayList<>();
    long nextFrom = existing.stream().mapToLong(Partition::to).max().orElse(1);
    long ahead = existing.stream().filter(p -> p.from() > head).count();
    while (ahead < partitionsAhead || nextFrom <= head + 1) {
      created.add(partitions.create(nextFrom, nextFrom + partitionSize));
      if (nextFrom > head) {
        ahead++;
      }
      nextFrom += partitionSize;
    }
    List<String> dropped = new ArrayList<>();
    Instant cutoff = clock.now().minus(retention);
    for (Partition p : existing) {
      if (p.holds(head) || p.from() > head) {
        break;
      }
      Optional<Instant> newest = partitions.newestEventAt(p.from(), p.to());
      if (newest.isPresent() && !newest.get().isBefore(cutoff)) {
        break;
      }
      partitions.drop(p.name());
      dropped.add(p.name());
    }
    return new Result(true, created, dropped);
  }
}
