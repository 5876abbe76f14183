package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.GroupCommit;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The unit before a delivery's request, shared by the deliveries that start together (D-WB-1, a
 * {@link GroupCommit}): each delivery queues its job's arguments without waiting; the thread {@code
 * bothy-webhooks-prepare} runs one unit for everything queued: the subscriptions read with one
 * statement, the events with one, then the rate slots taken per subscription in id order, last (a
 * claim locks the row until the commit right after it, D-WP-1). While one unit runs, the next batch
 * gathers, so a busy queue runs one unit per batch instead of one per delivery; an idle one runs a
 * batch of one, as before.
 *
 * <p>Promises the same as the unit per delivery it replaces: each delivery gets the verdict its own
 * unit would have given, once the batch's unit committed (a rate slot counts only then). A batch is
 * at most the deliveries the process runs at once (the {@code webhooks} queue's slots). A batch
 * whose unit fails is prepared again one delivery per unit, so one bad delivery fails alone.
 */
final class DeliveryPreparer {
  private final SubscriptionRepository subscriptions;
  private final EventLog log;
  private final RateSlots rateSlots;
  private final Clock clock;
  private final GroupCommit<DeliverArgs, Prepared> commit;

  /** What the unit before the request found for one delivery. */
  sealed interface Prepared {
    /** The job has nothing to deliver. */
    record Cancel(String reason) implements Prepared {}

    /** The event is no longer in the log. */
    record EventGone() implements Prepared {}

    /** The rate limit is used up until then. */
    record Wait(Instant until) implements Prepared {}

    /** Send it. */
    record Send(StoredSubscription subscription, Event event) implements Prepared {}
  }

  /**
   * Creates the preparer.
   *
   * @param unitOfWork runs each batch in its own unit
   * @param subscriptions the subscriptions' store
   * @param log the event log
   * @param rateSlots this process's share of the rate limits
   * @param clock the time of the rate slots
   */
  DeliveryPreparer(
      UnitOfWork unitOfWork,
      SubscriptionRepository subscriptions,
      EventLog log,
      RateSlots rateSlots,
      Clock clock) {
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.log = Objects.requireNonNull(log, "log");
    this.rateSlots = Objects.requireNonNull(rateSlots, "rateSlots");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.commit = new GroupCommit<>("bothy-webhooks-prepare", unitOfWork, this::prepareAll);
  }

  /**
   * Prepares one delivery, with whatever other threads queued meanwhile, and returns once the unit
   * that prepared it committed. Outside any unit of work.
   *
   * @param args the delivery
   * @return what to do with it
   * @throws RuntimeException what the database threw for this delivery; nothing of it is committed
   */
  Prepared prepare(DeliverArgs args) {
    return commit.await(args);
  }

  /**
   * Queues one delivery for the next unit and returns at once.
   *
   * @param args the delivery
   * @return completes on the preparing thread, {@code bothy-webhooks-prepare}, once the unit that
   *     prepared it committed; exceptionally with what the database threw for this delivery
   */
  CompletableFuture<Prepared> prepareAsync(DeliverArgs args) {
    return commit.submit(args);
  }

  /** How many deliveries wait for a preparing thread; for tests. */
  int queued() {
    return commit.queued();
  }

  /** Whether the job is still the subscription's to deliver. */
  static boolean inFlight(StoredSubscription stored, DeliverArgs args) {
    Subscription s = stored.view();
    if (s.state() != SubscriptionState.ACTIVE) {
      return false;
    }
    if (!s.ordered() || args.resend()) {
      return true;
    }
    return stored.generation() == args.generation()
        && s.heldSeq().equals(OptionalLong.of(args.seq()));
  }

  /** The batch's verdicts, in its order, in the caller's unit. */
  private List<Prepared> prepareAll(List<DeliverArgs> batch) {
    Set<UUID> ids = new LinkedHashSet<>();
    for (DeliverArgs args : batch) {
      ids.add(args.subscriptionId());
    }
    Map<UUID, StoredSubscription> found = subscriptions.findAll(ids);
    Prepared[] out = new Prepared[batch.size()];
    List<Long> seqs = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      DeliverArgs args = batch.get(i);
      StoredSubscription stored = found.get(args.subscriptionId());
      if (stored == null) {
        out[i] = new Prepared.Cancel("subscription deleted");
      } else if (!inFlight(stored, args)) {
        out[i] = new Prepared.Cancel("subscription disabled or delivery superseded");
      } else {
        seqs.add(args.seq());
      }
    }
    Map<Long, Event> events = new HashMap<>();
    for (Event e : log.readNumbers(seqs)) {
      events.put(e.seq(), e);
    }
    // The rate slots last, per subscription in id order: a claim locks the row until the commit,
    // and two units that claim several rows never wait for each other in a circle.
    Map<UUID, List<Integer>> sending = new TreeMap<>();
    for (int i = 0; i < batch.size(); i++) {
      if (out[i] != null) {
        continue;
      }
      DeliverArgs args = batch.get(i);
      if (!events.containsKey(args.seq())) {
        out[i] = new Prepared.EventGone();
      } else {
        sending.computeIfAbsent(args.subscriptionId(), k -> new ArrayList<>()).add(i);
      }
    }
    Instant now = clock.now();
    for (Map.Entry<UUID, List<Integer>> e : sending.entrySet()) {
      StoredSubscription stored = found.get(e.getKey());
      List<Integer> positions = e.getValue();
      RateSlots.Taken taken =
          rateSlots.take(e.getKey(), now, stored.view().rateLimit(), positions.size());
      for (int k = 0; k < positions.size(); k++) {
        int i = positions.get(k);
        out[i] =
            k < taken.granted()
                ? new Prepared.Send(stored, events.get(batch.get(i).seq()))
                : new Prepared.Wait(taken.windowEnd());
      }
    }
    return List.of(out);
  }
}
