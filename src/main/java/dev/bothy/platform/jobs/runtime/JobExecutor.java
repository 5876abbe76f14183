package dev.bothy.platform.jobs.runtime;

import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.platform.jobs.AsyncJobWork;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobTracer;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one fetched job on the calling worker thread, with a watchdog that interrupts it at its
 * kind's timeout, and hands the outcome to the {@link JobCompleter}. Whatever the work throws,
 * {@link Error}s included, is a failed attempt, so the worker thread goes on.
 *
 * <p>A job of an asynchronous kind ({@link AsyncJobWork}) is started on the calling thread instead
 * and recorded when its stage completes or its timeout passes, whichever comes first; a success is
 * recorded on the thread that completed the stage (it only queues the completion, or finds the job
 * completed in its work's unit), any other outcome on the queue's worker threads, since it writes
 * at once (ADR 0031).
 */
final class JobExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(JobExecutor.class);

  private final JobRegistry registry;
  private final ArgsCodec codec;
  private final JobTracer tracer;
  private final JobSettings settings;
  private final JobCompleter completer;
  private final ScheduledThreadPoolExecutor timers;
  private final Set<AsyncRun> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean abandoned;

  JobExecutor(
      JobRegistry registry,
      ArgsCodec codec,
      JobTracer tracer,
      JobSettings settings,
      JobCompleter completer) {
    this.registry = registry;
    this.codec = codec;
    this.tracer = tracer;
    this.settings = settings;
    this.completer = completer;
    this.timers = watchdogTimers();
  }

  /**
   * The one thread that fires the watchdogs of a runtime's jobs, {@code bothy-jobs-timeouts}. A
   * watchdog cancelled when its job ends leaves the queue at once: by default a cancelled task
   * stays queued until its delay runs out, and with a timeout of minutes (bus.dispatch: 5) a busy
   * queue kept hundreds of thousands of them on the heap and in the timer's queue.
   *
   * @return a single-thread timer of daemon threads that removes a task when it is cancelled
   */
  static ScheduledThreadPoolExecutor watchdogTimers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "bothy-jobs-timeouts");
              t.setDaemon(true);
              return t;
            });
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  /**
   * From now on, an interrupted job's failure, snooze or cancel is not recorded: the interrupt came
   * from the stop, which hands the job back, not from the job.
   */
  void abandon() {
    abandoned = true;
  }

  /**
   * Cancels the work of every asynchronous job still running; after {@link #abandon()}, so their
   * ends are handed back, not recorded.
   */
  void cancelAsync() {
    inFlight.forEach(AsyncRun::cancel);
  }

  /**
   * Whether the job's kind is asynchronous, so {@link #start} runs it rather than {@link #work}.
   *
   * @param job the job
   * @return true for a kind built with {@code JobKind.asyncBuilder}
   */
  boolean isAsync(FetchedJob job) {
    return registry.byName(job.kind()).flatMap(r -> r.kind().asyncWork()).isPresent();
  }

  /**
   * Starts a job of an asynchronous kind on the calling thread and returns without waiting for it;
   * records its outcome and calls {@code done} once its work ended or its timeout passed.
   *
   * @param job the job, fetched for this runtime, of an asynchronous kind
   * @param done frees the job's slot
   * @param blocking the queue's worker threads: the work's blocking parts and the recording of an
   *     outcome other than success
   */
  void start(FetchedJob job, Runnable done, Executor blocking) {
    JobRegistry.Registered<?> kind =
        registry
            .byName(job.kind())
            .orElseThrow(() -> new IllegalStateException("no job kind " + job.kind()));
    AsyncRun run = new AsyncRun(job, kind.timeout(), done, blocking);
    inFlight.add(run);
    run.begin(kind);
  }

  /** Ends the watchdog timers; after the workers ended. */
  void close() {
    timers.shutdownNow();
  }

  /**
   * Runs the job and records its outcome, then calls {@code done}, whatever happened.
   *
   * @param job the job, fetched for this runtime
   * @param done frees the worker's slot
   */
  void work(FetchedJob job, Runnable done) {
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
      completer.recordUntilStored(job, failure, end, nanos);
    } finally {
      done.run();
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

  @SuppressWarnings("unchecked")
  private <A extends Record> CompletableFuture<?> startAsync(
      JobRegistry.Registered<A> kind, FetchedJob job, Executor blocking) throws Exception {
    A args = codec.decodeArgs(job.args(), kind.kind().argsType());
    JobContext context =
        new JobContext(job.id(), job.kind(), job.attempt(), job.maxAttempts(), job.scheduledAt());
    AsyncJobWork<A> work =
        kind.kind()
            .asyncWork()
            .orElseThrow(() -> new IllegalStateException(job.kind() + " is not asynchronous"));
    // The span covers the start only: what follows runs on other threads, after it ended.
    CompletableFuture<?>[] started = new CompletableFuture<?>[1];
    tracer.traced(
        job.id(),
        job.kind(),
        job.attempt(),
        () -> started[0] = work.start(context, args, blocking).toCompletableFuture());
    return started[0];
  }

  /**
   * One running job of an asynchronous kind: whichever of its stage and its timeout comes first
   * settles it, once.
   */
  private final class AsyncRun {
    private final FetchedJob job;
    private final Duration timeout;
    private final Runnable done;
    private final Executor blocking;
    private final long start = System.nanoTime();
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile CompletableFuture<?> work;
    private volatile ScheduledFuture<?> timer;

    AsyncRun(FetchedJob job, Duration timeout, Runnable done, Executor blocking) {
      this.job = job;
      this.timeout = timeout;
      this.done = done;
      this.blocking = blocking;
    }

    void begin(JobRegistry.Registered<?> kind) {
      timer = timers.schedule(this::timedOut, timeout.toNanos(), TimeUnit.NANOSECONDS);
      CompletableFuture<?> stage;
      try {
        stage = startAsync(kind, job, blocking);
      } catch (Throwable e) { // NOPMD: every failure of a work function is a failed attempt
        settle(e, false);
        return;
      }
      work = stage;
      if (settled.get()) {
        // The timeout or a stop came first; the work was started meanwhile and is told to end.
        stage.cancel(true);
        return;
      }
      stage.whenComplete((value, e) -> settle(e, false));
    }

    private void timedOut() {
      if (settle(new TimeoutException("ran past its timeout of " + timeout), true)) {
        cancelWork();
      }
    }

    void cancel() {
      if (settle(new CancellationException("the stop cancelled it"), false)) {
        cancelWork();
      }
    }

    private void cancelWork() {
      CompletableFuture<?> stage = work;
      if (stage != null) {
        stage.cancel(true);
      }
    }

    /** Records the outcome unless another one came first; returns whether this one did. */
    private boolean settle(Throwable thrown, boolean timedOut) {
      if (!settled.compareAndSet(false, true)) {
        return false;
      }
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
      inFlight.remove(this);
      long nanos = System.nanoTime() - start;
      Throwable cause = thrown;
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      JobEnd end = cause instanceof JobEnd e ? e : null;
      Throwable failure = end == null ? cause : null;
      if (abandoned && !timedOut && (failure != null || end != null)) {
        LOG.info(
            "job cancelled by the stop, handed back: bothy.job.id={} bothy.job.kind={}",
            job.id(),
            job.kind());
        done.run();
        return true;
      }
      Runnable record =
          () -> {
            try {
              completer.recordUntilStored(job, failure, end, nanos);
            } finally {
              done.run();
            }
          };
      if (failure == null && end == null) {
        // A success only queues the completion (or finds it done in the work's unit): no write.
        record.run();
        return true;
      }
      try {
        blocking.execute(record);
      } catch (RejectedExecutionException stopping) {
        // The stop shut the worker threads: this thread writes the outcome itself.
        record.run();
      }
      return true;
    }
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
}
