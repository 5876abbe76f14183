package dev.bothy.bus;

import java.time.Duration;
import java.util.Objects;

/**
 * How bus consumers run on NATS ({@code bus.consumers.*}); each field names its key. {@code
 * MaxDeliver} is not among them: it is the contract's {@code VerdictRules.MAX_DELIVER}, the same on
 * both transports.
 *
 * @param ackWait {@code bus.consumers.ackWait}: the durable's {@code ackWait}, how long the server
 *     waits for an answer before it delivers a message again
 * @param keepAliveInterval {@code bus.consumers.keepAliveInterval}: how often a running handler's
 *     message gets {@code inProgress}; shorter than {@code ackWait}
 * @param maxAckPending {@code bus.consumers.maxAckPending}: the durable's {@code maxAckPending},
 *     messages delivered and not answered, those waiting out a nak's delay included
 * @param fetchBatch {@code bus.consumers.fetchBatch}: the most messages one pull asks for
 * @param fetchWait {@code bus.consumers.fetchWait}: how long one pull waits for messages
 * @param infoInterval {@code bus.consumers.infoInterval}: how often the durable's pending and
 *     redelivered counts are sampled for the gauges
 */
public record BusConsumerSettings(
    Duration ackWait,
    Duration keepAliveInterval,
    int maxAckPending,
    int fetchBatch,
    Duration fetchWait,
    Duration infoInterval) {
  /** The shortest pull wait jnats accepts ({@code BaseConsumeOptions.MIN_EXPIRES_MILLS}). */
  public static final Duration MIN_FETCH_WAIT = Duration.ofSeconds(1);

  /** Checks the fields and that a keep-alive comes before the ack wait runs out. */
  public BusConsumerSettings {
    Objects.requireNonNull(ackWait, "ackWait");
    Objects.requireNonNull(keepAliveInterval, "keepAliveInterval");
    Objects.requireNonNull(fetchWait, "fetchWait");
    Objects.requireNonNull(infoInterval, "infoInterval");
    if (keepAliveInterval.isNegative()
        || keepAliveInterval.isZero()
        || keepAliveInterval.compareTo(ackWait) >= 0) {
      throw new IllegalArgumentException(
          "bus.consumers.keepAliveInterval must be positive and shorter than"
              + " bus.consumers.ackWait");
    }
    if (fetchWait.compareTo(MIN_FETCH_WAIT) < 0) {
      throw new IllegalArgumentException("bus.consumers.fetchWait must be at least 1 s");
    }
    if (maxAckPending < fetchBatch || fetchBatch < 1) {
      throw new IllegalArgumentException(
          "bus.consumers.fetchBatch must be at least 1 and at most bus.consumers.maxAckPending");
    }
  }
}
