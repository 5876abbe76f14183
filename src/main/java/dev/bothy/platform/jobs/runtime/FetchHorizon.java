package dev.bothy.platform.jobs.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where a queue's fetch starts reading (ADR 0030): the due time of the queue's oldest waiting job,
 * or now when none is older, less {@code jobs.fetchLookback}; read again once per {@code
 * jobs.pollInterval}.
 *
 * <p>Why: a fetched job's entry in the index {@code jobs_fetch} stays until the next vacuum, and
 * all of them lie before the waiting jobs in the fetch's order, so a fetch from the start of the
 * queue walks every job fetched since the last vacuum (a page per few hundred jobs, milliseconds
 * per fetch on a busy queue). From the horizon it walks those of the lookback only; the horizon's
 * own read walks them all, once per interval.
 *
 * <p>What it costs: a job that becomes fetchable with a due time before the horizon is fetched by
 * the first fetch after the next read, within {@code jobs.pollInterval}, not at once. Only a job
 * whose inserting transaction stamped its due time more than the lookback before it committed (or a
 * process whose clock lags this one's by that much), and a job another process handed back at its
 * stop (it keeps its due time), can do that: retries, snoozes, the rescuer and operator retries
 * write a due time of now or later.
 *
 * <p>Confined to the thread of one queue's fetch loop.
 */
final class FetchHorizon {
  private final Duration lookback;
  private final long readEveryNanos;
  private final LongSupplier nanoTime;
  private Instant since;
  private long readAt;

  /**
   * Creates the horizon of one queue, unread.
   *
   * @param lookback {@code jobs.fetchLookback}
   * @param readEvery {@code jobs.pollInterval}: how long a read horizon is used
   * @param nanoTime the monotonic time of the reads ({@link System#nanoTime()})
   */
  FetchHorizon(Duration lookback, Duration readEvery, LongSupplier nanoTime) {
    this.lookback = Objects.requireNonNull(lookback, "lookback");
    this.readEveryNanos = readEvery.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * The horizon to fetch from: the last one read, or a new read when none was read yet or the last
   * is older than the interval. A read that throws leaves the last horizon and its age as they
   * were.
   *
   * @param now the runtime's time, as the fetch's due time
   * @param oldestWaiting reads the due time of the queue's oldest waiting job
   * @return the earliest due time the fetch reads
   */
  Instant current(Instant now, Supplier<Optional<Instant>> oldestWaiting) {
    long t = nanoTime.getAsLong();
    if (since == null || t - readAt >= readEveryNanos) {
      // The age counts from before the read: a job committed while it ran is younger than it.
      since = since(oldestWaiting.get(), now, lookback);
      readAt = t;
    }
    return since;
  }

  /**
   * The horizon of a read: the oldest waiting job's due time, or now when it is later or none
   * waits, less the lookback.
   *
   * @param oldest the due time of the oldest waiting job, if any
   * @param now the runtime's time
   * @param lookback {@code jobs.fetchLookback}
   * @return the earliest due time a fetch reads until the next read
   */
  static Instant since(Optional<Instant> oldest, Instant now, Duration lookback) {
    return oldest.filter(o -> o.isBefore(now)).orElse(now).minus(lookback);
  }
}
