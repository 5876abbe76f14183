package dev.bothy.platform.jobs.runtime;

import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobTracer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one fetched job on the calling worker thread, with a watchdog that interrupts it at its
 * kind's timeout, and hands the outcome to the {@link JobCompleter}. Whatever the work throws,
 * {@link Error}s included, is a failed attempt, so the worker thread goes on.
 */
final class JobExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(JobExecutor.class);

  private final JobRegistry registry;
  private final ArgsCodec codec;
  private final JobTracer tracer;
  private final JobSettings settings;
  private final JobCompleter completer;
  private final ScheduledThreadPoolExecutor timers;
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
