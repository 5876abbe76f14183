package dev.bothy.testkit;

/** The two transports of bus consumers (ADR 0024) a chaos suite runs a consumer on. */
public enum BusTransport {
  /**
   * The log transport: the worker consumer {@code bus} queues {@code bus.dispatch} jobs, and each
   * job's attempt is a delivery.
   */
  LOG,
  /**
   * The NATS transport: the relay publishes the log to {@code EVENTS} on a real {@code
   * nats-server}, and the consumer's durable delivers to {@code NatsDispatcher}.
   */
  NATS
}
