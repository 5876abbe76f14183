package dev.bothy.bus;

/**
 * A NATS durable's counts as last sampled from its consumer info, for the gauges.
 *
 * @param durable the durable's name
 * @param pending messages of the stream after the durable's position that match its filter, not yet
 *     delivered ({@code num_pending})
 * @param ackPending delivered and not answered, those waiting out a nak's delay included ({@code
 *     num_ack_pending}; it stalls the durable at {@code bus.consumers.maxAckPending})
 * @param redelivered messages delivered more than once and not yet answered ({@code
 *     num_redelivered})
 */
public record BusConsumerState(String durable, long pending, long ackPending, long redelivered) {}
