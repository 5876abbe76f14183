package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.GroupCommit;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobCompletions;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.webhooks.Attempt;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Records the successes of unordered deliveries (and resends) with a group commit (D-WP-3, a {@link
 * GroupCommit}): each delivery queues its attempt without waiting; the thread {@code
 * bothy-webhooks-record} runs one unit for everything queued (lock the subscription rows in id
 * order, insert the attempts, end the failure streaks and raise the last delivered numbers,
 * complete the attempts' jobs, D-WB-3), then completes each attempt's future. While one unit
 * commits, the next batch gathers, so a busy process writes one unit per batch instead of one per
 * delivery.
 *
 * <p>Promises the same as the unit it replaces: when an attempt's future completes normally, the
 * attempt and its consequences are committed; when exceptionally, they are not and the job fails
 * (and is retried). A batch is at most the deliveries the process runs at once (the {@code
 * webhooks} queue's slots). A batch whose unit fails is written again one attempt per unit, so one
 * bad attempt fails alone. An attempt of a subscription deleted meanwhile is dropped, as the single
 * unit did.
 */
final class DeliveredRecorder {
  private final SubscriptionRepository subscriptions;
  private final AttemptRepository attempts;
  private final Clock clock;
  private final JobCompletions completions;
  private final GroupCommit<Pending, Boolean> commit;

  private record Pending(Attempt attempt, JobContext job) {}

  /**
   * Creates the recorder.
   *
   * @param unitOfWork runs each batch in its own unit
   * @param subscriptions the subscriptions' store
   * @param attempts the attempts' store
   * @param clock the update times
   * @param completions completes the attempts' jobs in the batch's unit (D-WB-3)
   */
  DeliveredRecorder(
      UnitOfWork unitOfWork,
      SubscriptionRepository subscriptions,
      AttemptRepository attempts,
      Clock clock,
      JobCompletions completions) {
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.attempts = Objects.requireNonNull(attempts, "attempts");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.completions = Objects.requireNonNull(completions, "completions");
    this.commit = new GroupCommit<>("bothy-webhooks-record", unitOfWork, this::write);
  }

  /**
   * Records a delivered attempt and completes its job, and returns once both are committed, with
   * other threads' attempts and jobs in the same unit. Outside any unit of work.
   *
   * @param attempt the delivered attempt
   * @param job the attempt's job, completed in the same unit
   * @return whether the attempt was written; {@code false} when its subscription was deleted
   *     meanwhile (the job is completed all the same)
   * @throws RuntimeException what the database threw for this attempt; nothing of it is committed
   */
  boolean record(Attempt attempt, JobContext job) {
    return commit.await(new Pending(attempt, job));
  }

  /**
   * Queues a delivered attempt and its job for the next unit and returns at once.
   *
   * @param attempt the delivered attempt
   * @param job the attempt's job, completed in the same unit
   * @return completes on the recording thread, {@code bothy-webhooks-record}, once the unit
   *     committed: with whether the attempt was written ({@code false} when its subscription was
   *     deleted meanwhile); exceptionally with what the database threw for this attempt, and then
   *     nothing of it is committed
   */
  CompletableFuture<Boolean> recordAsync(Attempt attempt, JobContext job) {
    return commit.submit(new Pending(attempt, job));
  }

  /** How many attempts wait for a unit; for tests. */
  int queued() {
    return commit.queued();
  }

  /**
   * The batch in the caller's unit; per attempt, whether it was written (its subscription lives).
   */
  private List<Boolean> write(List<Pending> batch) {
    Map<UUID, Long> highest = new TreeMap<>();
    for (Pending p : batch) {
      highest.merge(p.attempt().subscriptionId(), p.attempt().eventSeq(), Math::max);
    }
    Set<UUID> present = subscriptions.lockAll(highest.keySet());
    highest.keySet().retainAll(present);
    attempts.insertAll(
        batch.stream()
            .map(Pending::attempt)
            .filter(a -> present.contains(a.subscriptionId()))
            .toList());
    subscriptions.deliveredAll(highest, clock.now());
    // The jobs complete with their attempts: no unit of the job runtime's own per batch (D-WB-3).
    completions.completeTx(batch.stream().map(Pending::job).toList());
    return batch.stream().map(p -> present.contains(p.attempt().subscriptionId())).toList();
  }
}
