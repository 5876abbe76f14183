package dev.bothy.platform.jobs;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The limits and intervals of the job runtime, from the {@code jobs} section of the configuration;
 * each field names its key.
 *
 * @param queues {@code jobs.queues}: queue name to the most jobs of it this process works at once
 * @param pollInterval {@code jobs.pollInterval}: how often a fetcher looks without a notification,
 *     and how long it fetches from one read of its queue's fetch horizon
 * @param fetchLookback {@code jobs.fetchLookback}: how far before the oldest waiting job a fetch
 *     starts reading (ADR 0030)
 * @param retryBaseDelay {@code jobs.retryBaseDelay}: the delay after the first failed attempt
 * @param retryMaxDelay {@code jobs.retryMaxDelay}: the cap of the retry delay
 * @param rescueAfter {@code jobs.rescueAfter}: a job running longer is taken back by the rescuer
 * @param completedRetention {@code jobs.completedRetention}: completed and cancelled jobs are
 *     deleted after this
 * @param discardedRetention {@code jobs.discardedRetention}: discarded jobs are deleted after this
 * @param maintenanceInterval {@code jobs.maintenanceInterval}: how often the rescuer, the cleaner
 *     and the periodic jobs run (on one worker at a time)
 * @param cleanerBatchSize {@code jobs.cleanerBatchSize}: the most rows one cleaner run deletes per
 *     state
 * @param errorMessageMaxChars {@code jobs.errorMessageMaxChars}: error messages are cut to this
 * @param listenReconnectBackoffCap {@code database.listenReconnectBackoffCap}: the cap of the
 *     LISTEN connection's reconnect backoff
 */
public record JobSettings(
    Map<String, Integer> queues,
    Duration pollInterval,
    Duration fetchLookback,
    Duration retryBaseDelay,
    Duration retryMaxDelay,
    Duration rescueAfter,
    Duration completedRetention,
    Duration discardedRetention,
    Duration maintenanceInterval,
    int cleanerBatchSize,
    int errorMessageMaxChars,
    Duration listenReconnectBackoffCap) {
  /** Checks the fields and copies the queues. */
  public JobSettings {
    queues = Map.copyOf(Objects.requireNonNull(queues, "queues"));
    queues.forEach(
        (q, n) -> {
          if (n < 1) {
            throw new IllegalArgumentException("jobs.queues." + q + " must be at least 1");
          }
        });
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(fetchLookback, "fetchLookback");
    if (fetchLookback.isNegative()) {
      throw new IllegalArgumentException("jobs.fetchLookback must not be negative");
    }
    Objects.requireNonNull(retryBaseDelay, "retryBaseDelay");
    Objects.requireNonNull(retryMaxDelay, "retryMaxDelay");
    Objects.requireNonNull(rescueAfter, "rescueAfter");
    Objects.requireNonNull(completedRetention, "completedRetention");
    Objects.requireNonNull(discardedRetention, "discardedRetention");
    Objects.requireNonNull(maintenanceInterval, "maintenanceInterval");
    Objects.requireNonNull(listenReconnectBackoffCap, "listenReconnectBackoffCap");
  }
}
