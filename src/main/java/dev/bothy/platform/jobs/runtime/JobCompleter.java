package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.domain.Backoff;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.platform.telemetry.TraceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the outcomes of attempts. A success joins a queue that one loop, {@code
 * bothy-jobs-completer}, completes in batches of one statement, its own transaction (ADR 0029); a
 * failure, snooze or cancel is written at once by the worker that ran the job, retried every {@code
 * jobs.pollInterval} while the database refuses.
 */
final class JobCompleter {
  private static final Logger LOG = LoggerFactory.getLogger(JobCompleter.class);

  private final UnitOfWork unitOfWork;
  private final JobRegistry registry;
  private final JobStore store;
  private final Clock clock;
  private final String clientId;
  private final JobSettings settings;
  private final JobMetrics metrics;
  private final Sleeper sleeper;
  private final BiConsumer<String, Duration> wakeAfter;
  private final LinkedBlockingQueue<UUID> completions = new LinkedBlockingQueue<>();
  // Jobs their work completed in a unit of its own (JobCompletions, D-WB-3), until they return.
  private final Set<UUID> completedInUnit = ConcurrentHashMap.newKeySet();
  private final ServiceLoop loop;
  private volatile boolean stopping;

  JobCompleter(
      UnitOfWork unitOfWork,
      JobRegistry registry,
      JobStore store,
      Clock clock,
      String clientId,
      JobSettings settings,
      JobMetrics metrics,
      Sleeper sleeper,
      BiConsumer<String, Duration> wakeAfter,
      Consumer<Throwable> onFatal) {
    this.wakeAfter = wakeAfter;
    this.unitOfWork = unitOfWork;
    this.registry = registry;
    this.store = store;
    this.clock = clock;
    this.clientId = clientId;
    this.settings = settings;
    this.metrics = metrics;
    this.sleeper = sleeper;
    this.loop =
        ServiceLoop.named("bothy-jobs-completer")
            // Polls are never a trace; work found gets a root span (TraceContext).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(settings.pollInterval())
            .log(LoopLog.of(LOG, "completing jobs", ""))
            // Every success wakes the loop: during an outage it must not retry at that pace.
            .retriesIgnoreWakes()
            .onFatal(onFatal)
            .build(this::completeOnce);
  }

  void start() {
    loop.start();
  }

  /** From now on a failing outcome is not retried: the hand back or the rescuer takes the job. */
  void beginStop() {
    stopping = true;
  }

  /**
   * Lets a running batch end within {@code budget}, then completes what is still queued in one
   * statement on the calling thread.
   */
  void stop(Duration budget) {
    loop.stop(budget);
    List<UUID> rest = new ArrayList<>();
    completions.drainTo(rest);
    if (rest.isEmpty()) {
      return;
    }
    try {
      unitOfWork.runStatement(() -> store.complete(rest, clock.now(), clientId));
    } catch (RuntimeException e) {
      LOG.warn(
          "completing jobs at stop failed; they run again: jobs={} error.type={} sqlstate={}",
          rest.size(),
          ErrorFields.type(e),
          ErrorFields.sqlState(e));
    }
  }

  private Next completeOnce() {
    List<UUID> ids = new ArrayList<>();
    completions.drainTo(ids);
    if (ids.isEmpty()) {
      return Next.WAIT;
    }
    try {
      // One statement, in auto-commit: no COMMIT round trip per batch (ADR 0029).
      unitOfWork.runStatement(() -> store.complete(ids, clock.now(), clientId));
    } catch (RuntimeException e) {
      // Queue them again: the rows stay running and are completed on the next try.
      completions.addAll(ids);
      throw e;
    }
    return completions.isEmpty() ? Next.WAIT : Next.AGAIN;
  }

  /**
   * Records an outcome, retrying every {@code jobs.pollInterval} while the database refuses (a full
   * pool, a restart), so a finished job does not wait for the rescuer; a stop ends the retries and
   * the hand back takes the job.
   */
  void recordUntilStored(FetchedJob job, Throwable failure, JobEnd end, long nanos) {
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
                  + " takes it: bothy.job.id={} bothy.job.kind={} error.type={} sqlstate={}",
              job.id(),
              job.kind(),
              ErrorFields.type(e),
              ErrorFields.sqlState(e));
          return;
        }
        if (!warned) {
          LOG.warn(
              "recording a job's outcome failed, retrying: bothy.job.id={} bothy.job.kind={}"
                  + " error.type={} sqlstate={}",
              job.id(),
              job.kind(),
              ErrorFields.type(e),
              ErrorFields.sqlState(e));
          warned = true;
        }
        try {
          sleeper.sleep(settings.pollInterval());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Notes jobs completed in a committed unit of their work, so their return completes nothing. */
  void completedInUnit(List<UUID> ids) {
    completedInUnit.addAll(ids);
  }

  private void record(FetchedJob job, Throwable failure, JobEnd end, long nanos) {
    if (completedInUnit.remove(job.id())) {
      // Its row is completed; whatever the work did after that cannot change it.
      metrics.worked(job.kind(), JobMetrics.Outcome.COMPLETED, nanos);
      return;
    }
    Instant now = clock.now();
    if (end != null && end.verb() == JobEnd.Verb.SNOOZE) {
      boolean snoozed =
          unitOfWork.run(() -> store.snooze(job.id(), clientId, now.plus(end.delay())));
      metrics.worked(job.kind(), JobMetrics.Outcome.SNOOZED, nanos);
      if (snoozed) {
        // Nothing notifies when a snooze ends: without this wake the job would wait for the next
        // poll, up to jobs.pollInterval after it is due (D-WF-2).
        registry.byName(job.kind()).ifPresent(r -> wakeAfter.accept(r.kind().queue(), end.delay()));
      }
    } else if (end != null && end.verb() == JobEnd.Verb.RETRY) {
      recordFailure(job, end, end.delay(), now, nanos);
    } else if (end != null) {
      unitOfWork.run(() -> store.cancelByWork(job.id(), clientId, now, cut(end.getMessage())));
      metrics.worked(job.kind(), JobMetrics.Outcome.CANCELLED, nanos);
      LOG.info(
          "job cancelled by its work: bothy.job.id={} bothy.job.kind={}", job.id(), job.kind());
    } else if (failure == null) {
      completions.add(job.id());
      loop.wake();
      metrics.worked(job.kind(), JobMetrics.Outcome.COMPLETED, nanos);
    } else {
      recordFailure(job, failure, Duration.ZERO, now, nanos);
    }
  }

  private void recordFailure(
      FetchedJob job, Throwable failure, Duration atLeast, Instant now, long nanos) {
    double jitter = ThreadLocalRandom.current().nextDouble();
    // A kind with its own schedule (webhooks) keeps it; every other kind backs off exponentially.
    Duration scheduled =
        registry
            .byName(job.kind())
            .flatMap(r -> r.kind().retryDelays())
            .map(d -> d.delayAfter(job.attempt(), jitter))
            .orElseGet(
                () ->
                    Backoff.delay(
                        job.attempt(),
                        settings.retryBaseDelay(),
                        settings.retryMaxDelay(),
                        jitter));
    Duration delay = scheduled.compareTo(atLeast) >= 0 ? scheduled : atLeast;
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
        "job attempt failed: bothy.job.id={} bothy.job.kind={} bothy.job.attempt={} max_attempts={}"
            + " next={} error.type={} sqlstate={}",
        job.id(),
        job.kind(),
        job.attempt(),
        job.maxAttempts(),
        discarded ? "discarded" : "retry in " + delay,
        ErrorFields.type(failure),
        ErrorFields.sqlState(failure));
  }

  private String cut(String message) {
    int max = settings.errorMessageMaxChars();
    return message.length() <= max ? message : message.substring(0, max);
  }
}
