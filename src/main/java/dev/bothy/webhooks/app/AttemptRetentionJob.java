package dev.bothy.webhooks.app;

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
 * The periodic job {@code webhooks.attempt_retention}: deletes the attempts older than {@code
 * webhooks.attemptRetention}, in batches of {@code jobs.cleanerBatchSize}, one unit per batch so no
 * unit holds many row locks.
 */
public final class AttemptRetentionJob {
  /** The kind's name. */
  public static final String KIND = "webhooks.attempt_retention";

  /** The kind's queue. */
  public static final String QUEUE = RetentionSweep.QUEUE;

  private static final Logger LOG = LoggerFactory.getLogger(AttemptRetentionJob.class);

  /** The args: none, the job cleans the whole table. */
  public record Args() {}

  private AttemptRetentionJob() {}

  /**
   * The job kind.
   *
   * @param unitOfWork the unit of work
   * @param attempts the attempts' store
   * @param clock the clock
   * @param retention {@code webhooks.attemptRetention}
   * @param batchSize {@code jobs.cleanerBatchSize}
   * @return the kind
   */
  public static JobKind<Args> kind(
      UnitOfWork unitOfWork,
      AttemptRepository attempts,
      Clock clock,
      Duration retention,
      int batchSize) {
    return RetentionSweep.kind(
        KIND,
        Args.class,
        LOG,
        "webhook attempts deleted",
        unitOfWork,
        clock,
        retention,
        batchSize,
        List.of(attempts::deleteOlderThan));
  }

  /**
   * The periodic job.
   *
   * @param interval {@code webhooks.attemptRetentionInterval}
   * @return the periodic job
   */
  public static PeriodicJob periodic(Duration interval) {
    return new PeriodicJob(new Args(), interval);
  }
}
