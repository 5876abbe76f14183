package dev.bothy.webhooks.app;

import java.util.Objects;
import java.util.UUID;

/**
 * The args of {@code webhooks.deliver}: ids, numbers and a flag only, so a job row never holds an
 * event's payload or a secret.
 *
 * @param subscriptionId the subscription
 * @param seq the event's number
 * @param generation the subscription's generation when the job was queued; a job of an older
 *     generation of an ordered subscription ends without sending (an enable or recover started a
 *     new chain)
 * @param resend whether an operator asked for it; a resend is outside an ordered subscription's
 *     chain and does not move it
 */
public record DeliverArgs(UUID subscriptionId, long seq, int generation, boolean resend) {
  /** Checks the fields. */
  public DeliverArgs {
    Objects.requireNonNull(subscriptionId, "subscriptionId");
    if (seq < 1) {
      throw new IllegalArgumentException("an event number starts at 1");
    }
  }
}
