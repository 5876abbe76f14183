package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobRuntime;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.jobs.PeriodicJob;
import dev.bothy.platform.jobs.domain.Backoff;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link JobRuntime}: per queue a fetcher thread and a fixed pool of {@code jobs.queues}
 * workers, one completer that completes successes in batches, one LISTEN connection on {@code
 * jobs_insert} and the maintenance (rescuer, cleaner, periodic jobs) under an advisory lock.
 *
 * <p>A fetcher fetches as many jobs as its queue has free workers with one statement, then waits
 * for a notification of its queue, a freed worker (when the last fetch filled every worker) or
 * {@code jobs.pollInterval}. A work function runs on a worker thread with a watchdog that
 * interrupts it at the kind's timeout; whatever it throws, {@link Error}s included, is recorded as
 * a failed attempt and the thread goes on. An unexpected end of a runtime thread goes to the {@code
 * onFatal} handler ({@code lifecycle.fail}, exit 1).
 */
public final class PgJobRuntime implements JobRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(PgJobRuntime.class);

  private final UnitOfWork unitOfWork;
  private final JobRegistry registry;
  private final ArgsCodec codec;
  private final JobInserter inserter;
  private final Clock clock;
  private final JobSettings settings;
  private final JobMetrics metrics;
  private final JobTracer tracer;
  private final Consumer<Throwable> onFatal;
  private final PoolSettings listenConnection;
  private final String clientId;
  private final JobStore store = new JobStore();
  private final Map<String, QueueRunner> queues = new LinkedHashMap<>();
  private final LinkedBlockingQueue<UUID> completions = new LinkedBlockingQueue<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile boolean stopping;
  private volatile boolean abandoned;
  private ScheduledExecutorService timers;
  private ScheduledExecutorService maintenance;
  private Thread completer;
  private Listener listener;

  /**
   * Creates a runtime; nothing runs until {@link #start()}.
   *
   * @param unitOfWork runs every statement in its own unit
   * @param registry the kinds (frozen by the time it starts)
   * @param codec reads args
   * @param inserter inserts the periodic jobs
   * @param clock decides what is due; the retry, rescue and retention times
   * @param settings the {@code jobs} configuration
   * @param metrics where attempts and fetches are reported
   * @param tracer wraps each job's work in a span
   * @param listenConnection the LISTEN connection's settings (its own application name)
   * @param onFatal called when a runtime thread ends unexpectedly
   */
  public PgJobRuntime(
      UnitOfWork unitOfWork,
      JobRegistry registry,
      ArgsCodec codec,
      JobInserter inserter,
      Clock clock,
      JobSettings settings,
      JobMetrics metrics,
      JobTracer tracer,
      PoolSettings listenConnection,
      Consumer<Throwable> onFatal) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.listenConnection = Objects.requireNonNull(listenConnection, "listenConnection");
    this.onFatal = Objects.requireNonNull(onFatal, "onFatal");
    this.clientId = processName() + "/" + Ids.newId();
  }

  /** {@code pid@host}, so operators see in {@code attempted_by} which process works a job. */
  private static String processName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return ProcessHandle.current().pid() + "@" + host;
  }

  @Override
  public String clientId() {
    return clientId;
  }

  @Override
  public void start() {
    if (started.get()) {
      throw new IllegalStateException("the job runtime is already started");
    }
    for (JobRegistry.Registered<?> r : registry.kinds()) {
      if (!settings.queues().containsKey(r.kind().queue())) {
        throw new IllegalStateException(
            "job kind "
                + r.kind().name()
                + " uses queue '"
                + r.kind().queue()
                + "', which jobs.queues does not list; add it with its worker count");
      }
    }
    for (PeriodicJob p : registry.periodic()) {
      Duration shortest =
          settings.completedRetention().compareTo(settings.discardedRetention()) < 0
              ? settings.completedRetention()
              : settings.discardedRetention();
      if (p.interval().compareTo(shortest) > 0) {
        throw new IllegalStateException(
            "the periodic job "
                + p.args().getClass().getSimpleName()
                + " runs less often than jobs.completedRetention or jobs.discardedRetention:"
                + " the cleaner would delete its job before the period ends and the period would"
                + " run twice; lengthen the retentions");
      }
    }
    started.set(true);
    timers = Executors.newScheduledThreadPool(1, daemon("bothy-jobs-timeouts"));
    maintenance = Executors.newSingleThreadScheduledExecutor(daemon("bothy-jobs-maintenance"));
    settings.queues().forEach((name, workers) -> queues.put(name, new QueueRunner(name, workers)));
    completer = guarded("bothy-jobs-completer", this::completeLoop);
    completer.start();
    queues.values().forEach(QueueRunner::start);
    listener =
        new Listener(
            listenConnection,
            JobStore.CHANNEL,
            settings.pollInterval(),
            settings.listenReconnectBackoffCap(),
            this::wake,
            () -> queues.values().forEach(q -> q.signal.signal()),
            onFatal);
    listener.start();
    long every = settings.maintenanceInterval().toMillis();
    maintenance.scheduleWithFixedDelay(this::maintainQuietly, 0, every, TimeUnit.MILLISECONDS);
    LOG.info(
        "job runtime started: client_id={} queues={} kinds={}",
        clientId,
        settings.queues(),
        registry.kinds().stream().map(r -> r.kind().name()).toList());
  }

  private void wake(String queue) {
    QueueRunner q = queues.get(queue);
    if (q != null) {
      q.signal.signal();
    }
  }

  @Override
  public void stop(Duration budget) {
    if (!started.get() || stopping) {
      return;
    }
    stopping = true;
    long deadline = System.nanoTime() + budget.toNanos();
    listener.close();
    maintenance.shutdownNow();
    for (QueueRunner q : queues.values()) {
      q.signal.signal();
      join(q.fetcher, deadline);
    }
    for (QueueRunner q : queues.values()) {
      q.workers.shutdown();
    }
    boolean finished = true;
    for (QueueRunner q : queues.values()) {
      finished &= awaitTermination(q.workers, deadline);
    }
    if (!finished) {
      // Past the budget: interrupt what still runs; its rows go back below, so the interrupt
      // must not be recorded as a failed attempt.
      abandoned = true;
      queues.values().forEach(q -> q.workers.shutdownNow());
      LOG.warn("job runtime stop: jobs still running past the budget are handed back");
    }
    completer.interrupt();
    join(completer, Math.max(deadline, System.nanoTime() + settings.pollInterval().toNanos()));
    flushCompletions();
    timers.shutdownNow();
    try {
      int handedBack = unitOfWork.run(() -> store.handBack(clientId));
      LOG.info("job runtime stopped: client_id={} handed_back={}", clientId, handedBack);
    } catch (RuntimeException e) {
      LOG.warn(
          "job runtime stop: handing back running jobs failed; the rescuer takes them after"
              + " jobs.rescueAfter: error={}",
          e.getMessage());
    }
  }

  /**
   * Runs one pass of the maintenance now, as the timer does every {@code jobs.maintenanceInterval}:
   * under the maintenance advisory lock, the rescuer, the cleaner and the periodic inserts, in one
   * unit.
   *
   * @return false when another worker held the lock and this pass did nothing
   */
  public boolean maintain() {
    Instant now = clock.now();
    return unitOfWork.run(
        () -> {
          if (!store.tryLockMaintenance()) {
            return false;
          }
          int rescued =
              store.rescue(
                  now,
                  now.minus(settings.rescueAfter()),
                  "running longer than jobs.rescueAfter; its worker is gone");
          int completed =
              store.clean(
                  List.of(JobState.COMPLETED, JobState.CANCELLED),
                  now.minus(settings.completedRetention()),
                  settings.cleanerBatchSize());
          int discarded =
              store.clean(
                  List.of(JobState.DISCARDED),
                  now.minus(settings.discardedRetention()),
                  settings.cleanerBatchSize());
          List<JobInsert> periodic = new ArrayList<>();
          for (PeriodicJob p : registry.periodic()) {
            long period = now.toEpochMilli() / p.interval().toMillis();
            periodic.add(JobInsert.of(p.args()).uniqueKey("periodic:" + period));
          }
          int inserted = periodic.isEmpty() ? 0 : inserter.insertTx(periodic).inserted();
          if (rescued + completed + discarded + inserted > 0) {
            LOG.info(
                "job maintenance: rescued={} deleted_completed={} deleted_discarded={}"
                    + " periodic_inserted={}",
                rescued,
                completed,
                discarded,
                inserted);
          }
          return true;
        });
  }

  private void maintainQuietly() {
    try {
      maintain();
    } catch (RuntimeException e) {
      LOG.warn("job maintenance failed, retrying next run: error={}", e.getMessage());
    } catch (Error e) {
      // The scheduler would cancel the task without a word: end the process instead.
      LOG.error("job maintenance ended unexpectedly", e);
      onFatal.accept(e);
      throw e;
    }
  }

  private void completeLoop() {
    List<UUID> batch = new ArrayList<>();
    while (!stopping) {
      try {
        if (batch.isEmpty()) {
          UUID first = completions.poll(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
          if (first == null) {
            continue;
          }
          batch.add(first);
        }
        completions.drainTo(batch);
        List<UUID> ids = List.copyOf(batch);
        unitOfWork.run(() -> store.complete(ids, clock.now(), clientId));
        batch.clear();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        // Keep the batch: the rows stay running and are completed on the next try.
        LOG.warn(
            "completing jobs failed, retrying: jobs={} error={}", batch.size(), e.getMessage());
        if (!pause(settings.pollInterval())) {
          break;
        }
      }
    }
    completions.addAll(batch);
  }

  private void flushCompletions() {
    List<UUID> rest = new ArrayList<>();
    completions.drainTo(rest);
    if (rest.isEmpty()) {
      return;
    }
    try {
      unitOfWork.run(() -> store.complete(rest, clock.now(), clientId));
    } catch (RuntimeException e) {
      LOG.warn(
          "completing jobs at stop failed; they run again: jobs={} error={}",
          rest.size(),
          e.getMessage());
    }
  }

  private void work(FetchedJob job, QueueRunner queue) {
    Optional<JobRegistry.Registered<?>> kind = registry.byName(job.kind());
    Duration timeout = kind.map(JobRegistry.Registered::timeout).orElse(settings.rescueAfter());
    Watchdog watchdog = new Watchdog(Thread.currentThread());
    ScheduledFuture<?> timer =
        timers.schedule(watchdog::fire, timeout.toNanos(), TimeUnit.NANOSECONDS);
    long start = System.nanoTime();
    Throwable failure = null;
    JobEnd end = null;
    try {
      if (kind.isEmpty()) {
        throw new IllegalStateException(
            "this process has no job kind " + job.kind() + "; was it removed or renamed?");
      }
      run(kind.get(), job);
    } catch (JobEnd e) {
      end = e;
    } catch (Throwable e) { // NOPMD: every failure of a work function is a failed attempt
      failure = e;
    } finally {
      timer.cancel(false);
      watchdog.disarm();
    }
    long nanos = System.nanoTime() - start;
    boolean timedOut = watchdog.fired();
    if (timedOut) {
      failure = new TimeoutException("ran past its timeout of " + timeout);
      end = null;
    }
    try {
      if (abandoned && !timedOut && (failure != null || end != null)) {
        LOG.info(
            "job interrupted by the stop, handed back: bothy.job.id={} bothy.job.kind={}",
            job.id(),
            job.kind());
        return;
      }
      recordUntilStored(job, failure, end, nanos);
    } finally {
      queue.slots.release();
      // After a full fetch more jobs are likely waiting: fetch again once half the workers are
      // free, so a busy queue fetches in batches instead of one job per freed worker.
      if (queue.lastFull.get() && queue.slots.availablePermits() >= queue.refetchAt) {
        queue.signal.signal();
      }
    }
  }

  @SuppressWarnings("unchecked")
  private <A extends Record> void run(JobRegistry.Registered<A> kind, FetchedJob job)
      throws Exception {
    A args = codec.decodeArgs(job.args(), kind.kind().argsType());
    JobContext context =
        new JobContext(job.id(), job.kind(), job.attempt(), job.maxAttempts(), job.scheduledAt());
    tracer.traced(
        job.id(), job.kind(), job.attempt(), () -> kind.kind().work().work(context, args));
  }

  /**
   * Interrupts a worker thread at the timeout, but never once the work has ended: the lock makes
   * "fire" and "disarm" exclusive, so no interrupt leaks into recording the outcome or the next job
   * of the thread.
   */
  private static final class Watchdog {
    private final Thread worker;
    private boolean armed = true;
    private boolean fired;

    Watchdog(Thread worker) {
      this.worker = worker;
    }

    synchronized void fire() {
      if (armed) {
        fired = true;
        worker.interrupt();
      }
    }

    synchronized void disarm() {
      armed = false;
      // Clears an interrupt the watchdog (or a stop) delivered while the work ran.
      Thread.interrupted();
    }

    synchronized boolean fired() {
      return fired;
    }
  }

  /**
   * Records an outcome, retrying every {@code jobs.pollInterval} while the database refuses (a full
   * pool, a restart), so a finished job does not wait for the rescuer; a stop ends the retries and
   * the hand back takes the job.
   */
  private void recordUntilStored(FetchedJob job, Throwable failure, JobEnd end, long nanos) {
    boolean warned = false;
    while (true) {
      try {
        record(job, failure, end, nanos);
        if (warned) {
          LOG.info("job outcome recorded after retries: bothy.job.id={}", job.id());
        }
        return;
      } catch (RuntimeException e) {
        if (stopping) {
          LOG.warn(
              "recording a job's outcome failed during the stop; the hand back or the rescuer"
                  + " takes it: bothy.job.id={} bothy.job.kind={} error={}",
              job.id(),
              job.kind(),
              e.getMessage());
          return;
        }
        if (!warned) {
          LOG.warn(
              "recording a job's outcome failed, retrying: bothy.job.id={} bothy.job.kind={} error={}",
              job.id(),
              job.kind(),
              e.getMessage());
          warned = true;
        }
        if (!pause(settings.pollInterval())) {
          return;
        }
      }
    }
  }

  private void record(FetchedJob job, Throwable failure, JobEnd end, long nanos) {
    Instant now = clock.now();
    if (end != null && end.verb() == JobEnd.Verb.SNOOZE) {
      unitOfWork.run(() -> store.snooze(job.id(), clientId, now.plus(end.delay())));
      metrics.worked(job.kind(), JobMetrics.Outcome.SNOOZED, nanos);
    } else if (end != null) {
      unitOfWork.run(() -> store.cancelByWork(job.id(), clientId, now, cut(end.getMessage())));
      metrics.worked(job.kind(), JobMetrics.Outcome.CANCELLED, nanos);
      LOG.info(
          "job cancelled by its work: bothy.job.id={} bothy.job.kind={}", job.id(), job.kind());
    } else if (failure == null) {
      completions.add(job.id());
      metrics.worked(job.kind(), JobMetrics.Outcome.COMPLETED, nanos);
    } else {
      Duration delay =
          Backoff.delay(
              job.attempt(),
              settings.retryBaseDelay(),
              settings.retryMaxDelay(),
              ThreadLocalRandom.current().nextDouble());
      boolean timeout = failure instanceof TimeoutException;
      JobStore.ErrorEntry entry =
          new JobStore.ErrorEntry(
              timeout ? "timeout" : "exception",
              failure.getClass().getName(),
              cut(String.valueOf(failure.getMessage())));
      Optional<JobState> state =
          unitOfWork.run(() -> store.fail(job.id(), clientId, now, now.plus(delay), entry));
      if (state.isEmpty()) {
        LOG.info(
            "job outcome ignored: the job is no longer this runtime's (handed back, rescued or"
                + " cancelled): bothy.job.id={} bothy.job.kind={}",
            job.id(),
            job.kind());
        return;
      }
      boolean discarded = state.filter(s -> s == JobState.DISCARDED).isPresent();
      metrics.worked(
          job.kind(), discarded ? JobMetrics.Outcome.DISCARDED : JobMetrics.Outcome.FAILED, nanos);
      LOG.warn(
          "job attempt failed: bothy.job.id={} bothy.job.kind={} bothy.job.attempt={} max_attempts={} next={} error={}",
          job.id(),
          job.kind(),
          job.attempt(),
          job.maxAttempts(),
          discarded ? "discarded" : "retry in " + delay,
          entry.error() + ": " + entry.message());
    }
  }

  private String cut(String message) {
    int max = settings.errorMessageMaxChars();
    return message.length() <= max ? message : message.substring(0, max);
  }

  /** The fetcher and workers of one queue. */
  private final class QueueRunner {
    final String name;
    final Semaphore slots;
    final Signal signal = new Signal();
    final AtomicBoolean lastFull = new AtomicBoolean();
    final int refetchAt;
    final ExecutorService workers;
    final Thread fetcher;

    QueueRunner(String name, int size) {
      this.name = name;
      this.slots = new Semaphore(size);
      this.refetchAt = Math.max(1, size / 2);
      AtomicInteger n = new AtomicInteger();
      this.workers =
          Executors.newFixedThreadPool(
              size,
              r -> {
                Thread t = new Thread(r, "bothy-jobs-" + name + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      this.fetcher = guarded("bothy-jobs-fetch-" + name, this::fetchLoop);
    }

    void start() {
      fetcher.start();
    }

    private void fetchLoop() {
      boolean failing = false;
      while (!stopping) {
        int free = slots.availablePermits();
        if (free > 0) {
          List<FetchedJob> jobs;
          long start = System.nanoTime();
          try {
            jobs = unitOfWork.run(() -> store.fetch(name, free, clock.now(), clientId));
            if (failing) {
              LOG.info("job fetch recovered: queue={}", name);
              failing = false;
            }
          } catch (RuntimeException e) {
            if (!failing) {
              LOG.warn("job fetch failed, retrying: queue={} error={}", name, e.getMessage());
              failing = true;
            }
            jobs = List.of();
          }
          metrics.fetched(name, jobs.size(), System.nanoTime() - start);
          lastFull.set(!jobs.isEmpty() && jobs.size() == free);
          for (FetchedJob job : jobs) {
            slots.acquireUninterruptibly();
            workers.execute(() -> work(job, this));
          }
          if (lastFull.get() && slots.availablePermits() >= refetchAt) {
            continue;
          }
        }
        try {
          signal.await(settings.pollInterval());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private Thread guarded(String name, Runnable body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable e) { // NOPMD: any end but a stop is fatal to the process
                if (!stopping) {
                  LOG.error("job runtime thread ended unexpectedly: thread={}", name, e);
                  onFatal.accept(e);
                }
                return;
              }
              if (!stopping) {
                IllegalStateException e =
                    new IllegalStateException("job runtime thread " + name + " ended");
                LOG.error("job runtime thread ended unexpectedly: thread={}", name);
                onFatal.accept(e);
              }
            },
            name);
    t.setDaemon(true);
    return t;
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static boolean pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void join(Thread t, long deadlineNanos) {
    try {
      t.join(Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean awaitTermination(ExecutorService pool, long deadlineNanos) {
    try {
      return pool.awaitTermination(
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
