package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import dev.bothy.webhooks.DisabledReason;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Moves an ordered subscription to its next event: the first event after a number whose type it
 * takes. Runs in the unit that holds the subscription's row lock, so the consumer (which holds an
 * event only while nothing is held) and this never both queue a delivery (ADR 0018).
 */
public final class OrderedChain {
  private final SubscriptionRepository subscriptions;
  private final EventLog log;
  private final JobInserter inserter;
  private final Clock clock;
  private final int pageSize;

  /**
   * Creates the chain.
   *
   * @param subscriptions the subscriptions' store
   * @param log the event log
   * @param inserter the job inserter
   * @param clock the clock of the update times
   * @param pageSize events per read while looking for the next match ({@code consumer.batchSize})
   */
  public OrderedChain(
      SubscriptionRepository subscriptions,
      EventLog log,
      JobInserter inserter,
      Clock clock,
      int pageSize) {
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.log = Objects.requireNonNull(log, "log");
    this.inserter = Objects.requireNonNull(inserter, "inserter");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (pageSize < 1) {
      throw new IllegalArgumentException("the page size is at least 1");
    }
    this.pageSize = pageSize;
  }

  /**
   * Holds the next matching event after {@code afterSeq} and queues its delivery; with none up to
   * the head, holds nothing, and the consumer queues the next one it meets. When the next event
   * fell behind retention, the subscription is disabled with {@code gap}.
   *
   * @param subscription the subscription, its row locked by the caller's unit
   * @param generation the generation the new job carries
   * @param afterSeq the number after which to look
   * @return the number now held, or empty
   */
  public OptionalLong advance(StoredSubscription subscription, int generation, long afterSeq) {
    List<String> types = subscription.view().eventTypes();
    long after = afterSeq;
    while (true) {
      ReadResult read = log.readAfter(after, pageSize);
      if (read instanceof ReadResult.ResyncRequired) {
        subscriptions.hold(subscription.view().id(), OptionalLong.empty(), clock.now());
        subscriptions.disable(subscription.view().id(), DisabledReason.GAP, clock.now());
        return OptionalLong.empty();
      }
      ReadResult.Page page = (ReadResult.Page) read;
      for (Event e : page.events()) {
        if (types.contains(e.type())) {
          subscriptions.hold(subscription.view().id(), OptionalLong.of(e.seq()), clock.now());
          inserter.insertTx(
              List.of(DeliveryJobs.delivery(subscription.view().id(), generation, e.seq())));
          return OptionalLong.of(e.seq());
        }
      }
      if (page.events().size() < pageSize) {
        subscriptions.hold(subscription.view().id(), OptionalLong.empty(), clock.now());
        return OptionalLong.empty();
      }
      after = page.nextAfter();
    }
  }
}
