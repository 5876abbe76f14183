package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.Event;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The handler of the worker consumer {@code webhooks}: every event becomes one {@code
 * webhooks.deliver} job per matching active subscription, queued with {@code insertLater} in the
 * round. An ordered subscription gets a job only when none of its deliveries is in flight (its held
 * number is empty); otherwise the delivery in flight finds the next event itself when it succeeds
 * (ADR 0018).
 *
 * <p>It locks the matching subscription rows (shared) for the round, so an operator's enable or
 * recover waits for the round or the round waits for it, and no event falls between the two.
 */
public final class WebhooksConsumer implements ConsumerHandler {
  private final SubscriptionRepository subscriptions;
  private final JobInserter inserter;
  private final Clock clock;

  /**
   * Creates the handler.
   *
   * @param subscriptions the subscriptions' store
   * @param inserter the job inserter
   * @param clock the clock of the update times
   */
  public WebhooksConsumer(SubscriptionRepository subscriptions, JobInserter inserter, Clock clock) {
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void handleEvent(Event event) {
    List<JobInsert> jobs = new ArrayList<>();
    for (StoredSubscription stored : subscriptions.lockMatching(event.type())) {
      Subscription s = stored.view();
      if (s.state() != SubscriptionState.ACTIVE) {
        continue;
      }
      if (s.ordered()) {
        if (s.heldSeq().isPresent()) {
          continue;
        }
        subscriptions.hold(s.id(), OptionalLong.of(event.seq()), clock.now());
      }
      jobs.add(DeliveryJobs.delivery(s.id(), stored.generation(), event.seq()));
    }
    if (!jobs.isEmpty()) {
      inserter.insertLater(jobs);
    }
  }

  /**
   * Disables every active subscription with {@code gap}: the lost events may have matched any of
   * them, and none can be delivered now. An operator recovers each from a number within retention.
   */
  @Override
  public void eventsLost(long fromSeq, long toSeq) {
    for (Subscription s : subscriptions.listActive()) {
      subscriptions.disable(s.id(), DisabledReason.GAP, clock.now());
    }
  }
}
