package dev.bothy.bus.app;

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
 * The periodic job {@code bus.delivery_retention}: deletes the rows of {@code event_deliveries}
 * handled, and the dead letters that died, before {@code bus.dispatch.deliveryRetention}, in
 * batches of {@code jobs.cleanerBatchSize}, one unit per batch. The key is checked at start to be
 * at least {@code sync.eventRetention} (and {@code bus.nats.stream.maxAge} with NATS): a row is
 * removed only once its event can no longer be delivered again, and a dead letter once its event is
 * gone and a replay could not run.
 */
public final class DeliveryRetentionJob {
  /** The kind's name. */
  public static final String KIND = "bus.delivery_retention";

  /** The kind's queue. */
  public static final String QUEUE = RetentionSweep.QUEUE;

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryRetentionJob.class);

  /** The args: none, the job cleans both tables. */
  public record Args() {}

  private DeliveryRetentionJob() {}

  /**
   * The job kind.
   *
   * @param unitOfWork the unit of work
   * @param deliveries the dedupe table's store
   * @param deadLetters the dead letters' store
   * @param clock the clock
   * @param retention {@code bus.dispatch.deliveryRetention}
   * @param batchSize {@code jobs.cleanerBatchSize}
   * @return the kind
   */
  public static JobKind<Args> kind(
      UnitOfWork unitOfWork,
      DeliveryRepository deliveries,
      DeadLetterRepository deadLetters,
      Clock clock,
      Duration retention,
      int batchSize) {
    return RetentionSweep.kind(
        KIND,
        Args.class,
        LOG,
        "bus deliveries and dead letters deleted",
        unitOfWork,
        clock,
        retention,
        batchSize,
        List.of(deliveries::deleteOlderThan, deadLetters::deleteOlderThan));
  }

  /**
   * The periodic job.
   *
   * @param interval {@code bus.dispatch.deliveryRetentionInterval}
   * @return the periodic job
   */
  public static PeriodicJob periodic(Duration interval) {
    return new PeriodicJob(new Args(), interval);
  }
}
