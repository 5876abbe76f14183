package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobState;
import dev.bothy.platform.jobs.PeriodicJob;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The maintenance of the job table: every {@code jobs.maintenanceInterval}, under an advisory lock
 * so one worker of the cluster does it at a time, the rescuer, the cleaner and the periodic
 * inserts, in one unit. A failed pass warns once and the next pass runs as usual.
 */
final class JobMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(JobMaintenance.class);

  private final UnitOfWork unitOfWork;
  private final JobStore store;
  private final JobRegistry registry;
  private final JobInserter inserter;
  private final Clock clock;
  private final JobSettings settings;
  private final ServiceLoop loop;

  JobMaintenance(
      UnitOfWork unitOfWork,
      JobStore store,
      JobRegistry registry,
      JobInserter inserter,
      Clock clock,
      JobSettings settings,
      Consumer<Throwable> onFatal) {
    this.unitOfWork = unitOfWork;
    this.store = store;
    this.registry = registry;
    this.inserter = inserter;
    this.clock = clock;
    this.settings = settings;
    this.loop =
        ServiceLoop.named("bothy-jobs-maintenance")
            // Polls are never a trace; work found gets a root span (TraceContext).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(settings.maintenanceInterval())
            .log(LoopLog.of(LOG, "job maintenance", ""))
            .onFatal(onFatal)
            .build(
                () -> {
                  pass();
                  return Next.WAIT;
                });
  }

  /** Starts the passes; the first runs at once. */
  void start() {
    loop.start();
  }

  /** Stops the passes at once: a running pass is interrupted and its unit rolls back. */
  void stop() {
    loop.stop(Duration.ZERO);
  }

  /**
   * Runs one pass now.
   *
   * @return false when another worker held the lock and this pass did nothing
   */
  boolean pass() {
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
}
