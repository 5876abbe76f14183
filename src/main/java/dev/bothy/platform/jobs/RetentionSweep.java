package dev.bothy.platform.jobs;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * The body shared by the retention jobs of the modules (idempotency keys, webhook attempts, bus
 * deliveries and dead letters): deletes the rows older than a retention from one table after the
 * other, in batches of {@code jobs.cleanerBatchSize} with one unit of work per batch so no unit
 * holds many row locks, and logs one line with the count when it deleted any. The kind runs on the
 * queue {@value #QUEUE}.
 */
public final class RetentionSweep {
  /** The queue every retention kind runs on. */
  public static final String QUEUE = "maintenance";

  /** One table's batch delete, run inside the sweep's unit of work. */
  @FunctionalInterface
  public interface BatchDelete {
    /**
     * Deletes up to {@code limit} rows older than {@code before}.
     *
     * @param before the rows older than this go
     * @param limit the batch size
     * @return how many rows were deleted; fewer than {@code limit} ends this table's sweep
     */
    int deleteOlderThan(Instant before, int limit);
  }

  private RetentionSweep() {}

  /**
   * A retention job kind.
   *
   * @param name the kind's name
   * @param argsType the kind's args record (each kind has its own: the registry maps args to kinds)
   * @param log the logger of the module's job class, so the line keeps its category
   * @param deletedLine the line logged with {@code deleted=<count>} appended, when rows went
   * @param unitOfWork runs each batch in its own unit
   * @param clock decides what is older than the retention
   * @param retention the retention key's value
   * @param batchSize {@code jobs.cleanerBatchSize}
   * @param tables the tables' batch deletes, swept in this order
   * @param <A> the args type
   * @return the kind, on the queue {@value #QUEUE}
   */
  public static <A extends Record> JobKind<A> kind(
      String name,
      Class<A> argsType,
      Logger log,
      String deletedLine,
      UnitOfWork unitOfWork,
      Clock clock,
      Duration retention,
      int batchSize,
      List<BatchDelete> tables) {
    Objects.requireNonNull(log, "log");
    Objects.requireNonNull(deletedLine, "deletedLine");
    Objects.requireNonNull(unitOfWork, "unitOfWork");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(retention, "retention");
    List<BatchDelete> sweep = List.copyOf(tables);
    if (batchSize < 1) {
      throw new IllegalArgumentException("jobs.cleanerBatchSize must be at least 1");
    }
    return JobKind.builder(
            name,
            argsType,
            (context, args) -> {
              Instant before = clock.now().minus(retention);
              long total = 0;
              for (BatchDelete table : sweep) {
                int deleted;
                do {
                  deleted = unitOfWork.run(() -> table.deleteOlderThan(before, batchSize));
                  total += deleted;
                } while (deleted == batchSize);
              }
              if (total > 0) {
                log.info(deletedLine + ": deleted={}", total);
              }
            })
        .queue(QUEUE)
        .build();
  }
}
