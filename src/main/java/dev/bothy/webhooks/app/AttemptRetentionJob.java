package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.PeriodicJob;
import java.time.Duration;
import java.time.Instant;
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
  public static final String QUEUE = "maintenance";

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
    return JobKind.builder(
            KIND,
            Args.class,
            (context, args) -> {
              Instant before = clock.now().minus(retention);
              int total = 0;
              int deleted;
              do {
                deleted = unitOfWork.run(() -> attempts.deleteOlderThan(before, batchSize));
                total += deleted;
              } while (deleted == batchSize);
              if (total > 0) {
                LOG.info("webhook attempts deleted: deleted={}", total);
              }
            })
        .queue(QUEUE)
        .build();
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
