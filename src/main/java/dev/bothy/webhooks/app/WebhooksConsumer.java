package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.Event;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * The handler of the worker consumer {@code webhooks}: every event becomes one {@code
 * webhooks.deliver} job per matching active subscription, queued with {@code insertLater} in the
 * round. An ordered subscription gets a job only when none of its deliveries is in flight (its held
 * number is empty); otherwise the delivery in flight finds the next event itself when it succeeds
 * (ADR 0018).
 *
 * <p>It locks the matching subscription rows ({@code FOR KEY SHARE}) for the round, so an
 * operator's verb or an ordered chain (both {@code FOR UPDATE}) waits for the round or the round
 * waits for it, and no event falls between the two; the rate claims and recorded successes of
 * deliveries ({@code FOR NO KEY UPDATE}) go on meanwhile (D-WP-4).
 */
public final class WebhooksConsumer implements ConsumerHandler {
  /** What a round read and changed: the matches per event type, and the ordered ones it held. */
  private record Round(Map<String, List<StoredSubscription>> matching, Set<UUID> held) {}

  private static final TxKey<Round> ROUND = TxKey.of("webhooks.consumer.round");

  private final UnitOfWork unitOfWork;
  private final SubscriptionRepository subscriptions;
  private final JobInserter inserter;
  private final Clock clock;

  /**
   * Creates the handler.
   *
   * @param unitOfWork the unit of work the rounds run in; the handler keeps its matches there
   * @param subscriptions the subscriptions' store
   * @param inserter the job inserter
   * @param clock the clock of the update times
   */
  public WebhooksConsumer(
      UnitOfWork unitOfWork,
      SubscriptionRepository subscriptions,
      JobInserter inserter,
      Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void handleEvent(Event event) {
    // The matches are read and locked once per event type and round (D-WP-5): the lock keeps every
    // field the handler reads (state, ordered, held number, types) until the round ends, and the
    // round's own holds are remembered beside them.
    Round round =
        unitOfWork.computeIfAbsent(ROUND, () -> new Round(new HashMap<>(), new HashSet<>()));
    List<StoredSubscription> matching =
        round.matching().computeIfAbsent(event.type(), subscriptions::lockMatching);
    List<JobInsert> jobs = new ArrayList<>();
    for (StoredSubscription stored : matching) {
      Subscription s = stored.view();
      if (s.state() != SubscriptionState.ACTIVE) {
        continue;
      }
      if (s.ordered()) {
        if (s.heldSeq().isPresent() || !round.held().add(s.id())) {
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
    // Matches read earlier in the round would still show them active.
    unitOfWork.get(ROUND).ifPresent(r -> r.matching().clear());
    for (Subscription s : subscriptions.listActive()) {
      subscriptions.disable(s.id(), DisabledReason.GAP, clock.now());
    }
  }
}
