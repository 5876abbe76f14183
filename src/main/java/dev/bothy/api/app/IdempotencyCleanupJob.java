package dev.bothy.api.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.PeriodicJob;
import dev.bothy.platform.jobs.RetentionSweep;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic job {@code api.idempotency_cleanup}: deletes the idempotency keys older than {@code
 * api.idempotencyRetention}, in batches of {@code jobs.cleanerBatchSize}, one unit per batch so no
 * unit holds many row locks. Expired rows are already ignored by the API; this only frees the
 * space.
 */
public final class IdempotencyCleanupJob {
  /** The kind's name. */
  public static final String KIND = "api.idempotency_cleanup";

  /** The kind's queue. */
  public static final String QUEUE = RetentionSweep.QUEUE;

  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyCleanupJob.class);

  /** The args: none, the job cleans the whole table. */
  public record Args() {}

  private IdempotencyCleanupJob() {}

  /**
   * The job kind.
   *
   * @param unitOfWork the unit of work
   * @param repository the store
   * @param clock the clock
   * @param retention {@code api.idempotencyRetention}
   * @param batchSize {@code jobs.cleanerBatchSize}
   * @return the kind, for {@link dev.bothy.platform.jobs.JobRegistry#register}
   */
  public static JobKind<Args> kind(
      UnitOfWork unitOfWork,
      IdempotencyRepository repository,
      Clock clock,
      Duration retention,
      int batchSize) {
    return RetentionSweep.kind(
        KIND,
        Args.class,
        LOG,
        "idempotency keys deleted",
        unitOfWork,
        clock,
        retention,
        batchSize,
        List.of(repository::deleteOlderThan));
  }

  /**
   * The periodic job.
   *
   * @param interval {@code api.idempotencyCleanupInterval}
   * @return the periodic job, for {@link dev.bothy.platform.jobs.JobRegistry#registerPeriodic}
   */
  public static PeriodicJob periodic(Duration interval) {
    return new PeriodicJob(new Args(), interval);
  }
}
