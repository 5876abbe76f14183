package dev.bothy.bus.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.PeriodicJob;
import java.time.Duration;
import java.time.Instant;
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
  public static final String QUEUE = "maintenance";

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
    return JobKind.builder(
            KIND,
            Args.class,
            (context, args) -> {
              Instant before = clock.now().minus(retention);
              int rows = 0;
              int deleted;
              do {
                deleted = unitOfWork.run(() -> deliveries.deleteOlderThan(before, batchSize));
                rows += deleted;
              } while (deleted == batchSize);
              int letters = 0;
              do {
                deleted = unitOfWork.run(() -> deadLetters.deleteOlderThan(before, batchSize));
                letters += deleted;
              } while (deleted == batchSize);
              if (rows + letters > 0) {
                LOG.info("bus deliveries and dead letters deleted: deleted={}", rows + letters);
              }
            })
        .queue(QUEUE)
        .build();
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
