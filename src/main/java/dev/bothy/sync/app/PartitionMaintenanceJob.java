package dev.bothy.sync.app;

import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.PeriodicJob;
import java.time.Duration;

/**
 * The event log's partition maintenance as a periodic job of {@code platform.jobs}: the maintenance
 * of the job runtime inserts one per {@code sync.partitionMaintenanceInterval} (the unique key
 * makes it one across workers), a worker of the {@code maintenance} queue runs {@link
 * PartitionMaintenance#run()}, whose advisory lock still keeps two runs apart.
 */
public final class PartitionMaintenanceJob {
  /** The kind's name. */
  public static final String KIND = "sync.partition_maintenance";

  /** The kind's queue. */
  public static final String QUEUE = "maintenance";

  /** The args: none, the job maintains the whole log. */
  public record Args() {}

  private PartitionMaintenanceJob() {}

  /**
   * The job kind.
   *
   * @param maintenance the maintenance it runs
   * @return the kind, for {@link dev.bothy.platform.jobs.JobRegistry#register}
   */
  public static JobKind<Args> kind(PartitionMaintenance maintenance) {
    return JobKind.builder(KIND, Args.class, (context, args) -> maintenance.run())
        .queue(QUEUE)
        .build();
  }

  /**
   * The periodic job.
   *
   * @param interval {@code sync.partitionMaintenanceInterval}
   * @return the periodic job, for {@link dev.bothy.platform.jobs.JobRegistry#registerPeriodic}
   */
  public static PeriodicJob periodic(Duration interval) {
    return new PeriodicJob(new Args(), interval);
  }
}
