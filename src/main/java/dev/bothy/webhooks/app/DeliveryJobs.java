package dev.bothy.webhooks.app;

import dev.bothy.platform.jobs.JobInsert;
import java.util.UUID;

/**
 * The inserts of {@code webhooks.deliver}. The unique key {@code <subscription>:<generation>:<seq>}
 * makes one job per subscription, event and generation: the consumer and a recovery that both reach
 * an event insert it once, and a recovery (a new generation) may deliver an event again.
 */
public final class DeliveryJobs {
  /** The kind's name. */
  public static final String KIND = "webhooks.deliver";

  /** The queue of the deliveries, listed in {@code jobs.queues} of the worker processes. */
  public static final String QUEUE = "webhooks";

  private DeliveryJobs() {}

  /**
   * The insert of a delivery in the chain of the consumer (or a recovery).
   *
   * @param subscriptionId the subscription
   * @param generation the subscription's generation
   * @param seq the event's number
   * @return the insert
   */
  public static JobInsert delivery(UUID subscriptionId, int generation, long seq) {
    return JobInsert.of(new DeliverArgs(subscriptionId, seq, generation, false))
        .uniqueKey(subscriptionId + ":" + generation + ":" + seq);
  }

  /**
   * The insert of an operator's resend: no unique key, since it repeats a delivery on purpose.
   *
   * @param subscriptionId the subscription
   * @param generation the subscription's generation
   * @param seq the event's number
   * @return the insert
   */
  public static JobInsert resend(UUID subscriptionId, int generation, long seq) {
    return JobInsert.of(new DeliverArgs(subscriptionId, seq, generation, true));
  }
}
