package dev.bothy.platform.jobs;

import java.time.Duration;
import java.util.Objects;

/**
 * A job inserted once per period by the maintenance, for example the event log's partition
 * maintenance; the insert carries the unique key {@code periodic:<period number>}, so two workers
 * that both insert it make one job.
 *
 * @param args the args record of a registered kind
 * @param interval the period; at least {@code jobs.maintenanceInterval} is useful
 */
public record PeriodicJob(Record args, Duration interval) {
  /** Checks the fields. */
  public PeriodicJob {
    Objects.requireNonNull(args, "args");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a periodic job's interval must be positive");
    }
  }
}
