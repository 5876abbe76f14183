package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetcher and workers of one queue: a loop, {@code bothy-jobs-fetch-<queue>}, fetches as many
 * jobs as the queue has free workers with one statement and hands them to a fixed pool of {@code
 * jobs.queues} worker threads; a job of an asynchronous kind is started on the loop's thread
 * instead and holds its worker's slot, not a thread, until its work ends (ADR 0031). It then waits
 * for a wake (a notification of its queue, or a freed worker when the last fetch filled every
 * worker) or {@code jobs.pollInterval}. The fetch reads the queue from its {@link FetchHorizon}
 * (ADR 0030).
 */
final class JobFetcher {
  private static final Logger LOG = LoggerFactory.getLogger(JobFetcher.class);

  private final String queue;
  private final UnitOfWork unitOfWork;
  private final JobStore store;
  private final Clock clock;
  private final String clientId;
  private final JobMetrics metrics;
  private final JobExecutor executor;
  private final Semaphore slots;
  private final int size;
  private final AtomicBoolean lastFull = new AtomicBoolean();
  private final int refetchAt;
  private final ExecutorService workers;
  private final ServiceLoop loop;
  private final FetchHorizon horizon;

  JobFetcher(
      String queue,
      int size,
      UnitOfWork unitOfWork,
      JobStore store,
      Clock clock,
      String clientId,
      JobSettings settings,
      JobMetrics metrics,
      JobExecutor executor,
      Consumer<Throwable> onFatal) {
    this.queue = queue;
    this.unitOfWork = unitOfWork;
    this.store = store;
    this.clock = clock;
    this.clientId = clientId;
    this.metrics = metrics;
    this.executor = executor;
    this.slots = new Semaphore(size);
    this.size = size;
    this.refetchAt = Math.max(1, size / 2);
    this.horizon =
        new FetchHorizon(settings.fetchLookback(), settings.pollInterval(), System::nanoTime);
    AtomicInteger n = new AtomicInteger();
    this.workers =
        Executors.newFixedThreadPool(
            size,
            r -> {
              Thread t = new Thread(r, "bothy-jobs-" + queue + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.loop =
        ServiceLoop.named("bothy-jobs-fetch-" + queue)
            // Polls are never a trace; work found gets a root span (TraceContext).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(settings.pollInterval())
            .log(LoopLog.of(LOG, "job fetch", "queue=" + queue))
            .onFatal(onFatal)
            .build(this::fetchOnce);
  }

  void start() {
    loop.start();
  }

  /** Asks for a fetch soon; cheap, wakes coalesce. */
  void wake() {
    loop.wake();
  }

  private Next fetchOnce() {
    int free = slots.availablePermits();
    if (free == 0) {
      return Next.WAIT;
    }
    List<FetchedJob> jobs = List.of();
    long start = System.nanoTime();
    try {
      Instant now = clock.now();
      Instant since =
          horizon.current(now, () -> unitOfWork.runStatement(() -> store.oldestWaiting(queue)));
      // One statement, so no transaction block around it: one round trip (ADR 0029).
      jobs = unitOfWork.runStatement(() -> store.fetch(queue, free, now, clientId, since));
    } finally {
      // A failed fetch counts as an empty one, as the metric has always shown it.
      metrics.fetched(queue, jobs.size(), System.nanoTime() - start);
      lastFull.set(!jobs.isEmpty() && jobs.size() == free);
    }
    for (FetchedJob job : jobs) {
      slots.acquireUninterruptibly();
      if (executor.isAsync(job)) {
        // Its work waits without a thread: started here, its slot held until it ends (ADR 0031).
        executor.start(job, this::freed, workers);
      } else {
        workers.execute(() -> executor.work(job, this::freed));
      }
    }
    return lastFull.get() && slots.availablePermits() >= refetchAt ? Next.AGAIN : Next.WAIT;
  }

  private void freed() {
    slots.release();
    // After a full fetch more jobs are likely waiting: fetch again once half the workers are free,
    // so a busy queue fetches in batches instead of one job per freed worker.
    if (lastFull.get() && slots.availablePermits() >= refetchAt) {
      loop.wake();
    }
  }

  /**
   * Stops the fetch loops of several queues within one budget; the workers go on.
   *
   * @return true when every loop ended within the budget
   */
  static boolean stopFetching(Collection<JobFetcher> fetchers, Duration budget) {
    return ServiceLoop.stopAll(fetchers.stream().map(f -> f.loop).toList(), budget);
  }

  /**
   * Waits until the running jobs ended or the deadline ({@link System#nanoTime()}) passed: every
   * slot free (an asynchronous job holds one without a thread), then the worker threads ended. The
   * threads take work until every slot is free, since an asynchronous job still running hands its
   * blocking parts and its outcome to them; the stopped fetch loop starts no new job meanwhile.
   */
  boolean awaitWorkers(long deadlineNanos) {
    try {
      // Every slot taken back at once, when the last job frees its own: the stopped fetch loop
      // takes none meanwhile, and none is given back after the stop.
      if (!slots.tryAcquire(
          size, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return false;
      }
      workers.shutdown();
      return workers.awaitTermination(
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Interrupts the jobs still running; the asynchronous ones are cancelled by the executor. */
  void interruptWorkers() {
    workers.shutdownNow();
  }
}
