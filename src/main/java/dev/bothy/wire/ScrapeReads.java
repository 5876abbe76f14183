package dev.bothy.wire;

import dev.bothy.platform.telemetry.TraceContext;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The database reads of the gauges, bounded so a scrape never blocks: each read runs on one
 * background thread and the scrape waits for it at most {@code database.metricsReadTimeout}. A read
 * that fails or does not finish in time gives null, and the gauge leaves its series out for that
 * scrape (never a made-up zero). While a read that timed out still runs (the pool is exhausted, a
 * lock is held), further reads give null at once instead of queueing behind it, so a whole scrape
 * waits for the database at most one timeout, whatever the number of gauges.
 *
 * <p>The reads run outside any recorded trace: a scrape is never a trace.
 */
final class ScrapeReads {
  private final Duration timeout;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "bothy-metrics-read");
            t.setDaemon(true);
            return t;
          });
  private Future<?> pending;

  /**
   * Creates the reads.
   *
   * @param timeout {@code database.metricsReadTimeout}
   */
  ScrapeReads(Duration timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Runs one read within the bound.
   *
   * @param read the read, which may throw
   * @param <T> its result
   * @return the result, or null when the read failed, timed out or an earlier one still runs
   */
  <T> T read(Supplier<T> read) {
    Future<T> future;
    synchronized (this) {
      if (pending != null && !pending.isDone()) {
        return null;
      }
      future = thread.submit(() -> TraceContext.untraced(read));
      pending = future;
    }
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
