package dev.bothy.bus.app;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.sync.Event;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NATS transport of one bus consumer (ADR 0024, 0025): each message of its durable goes through
 * the same {@link Dispatch} as the log transport, and the verdict becomes the JetStream verb after
 * the handlers' commits: {@code ack}; {@code nakWithDelay} with the schedule's delay by the
 * message's delivery count; {@code term}. While dispatch runs, {@link KeepAlive} holds the message.
 *
 * <ul>
 *   <li>A type none of the consumer's handlers takes (a 2.9 server filters one subject, a wildcard
 *       for a consumer of several types) is acked without a unit of work.
 *   <li>A dead letter written during the delivery is announced on {@code bothy.dead.<durable>}
 *       after its commit, for outside tooling; the table stays the record.
 *   <li>The last retryable failure ({@link VerdictRules#MAX_DELIVER}, the durable's {@code
 *       MaxDeliver}) is a term with its dead letter, decided here, since the server's advisory is
 *       late and lost when nobody listens.
 *   <li>A dispatch that fails before a verdict (the database away while reading the dead letters)
 *       naks with the schedule's delay; a body that is not an event of the log terms without a dead
 *       letter (it has no event to name), with a warning.
 * </ul>
 */
public final class NatsDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(NatsDispatcher.class);

  /** The subject prefix of the dead-letter notices; the durable follows it. */
  public static final String DEAD_SUBJECT_PREFIX = "bothy.dead.";

  private final BusConsumer consumer;
  private final HandlerRegistry registry;
  private final Dispatch dispatch;
  private final KeepAlive keepAlive;
  private final Notices notices;

  /**
   * Creates the dispatcher of one consumer.
   *
   * @param consumer the consumer; only its own handlers run
   * @param registry the handlers of this process
   * @param dispatch the dispatch contract
   * @param keepAlive holds a message while dispatch runs
   * @param notices where dead-letter notices go
   */
  public NatsDispatcher(
      BusConsumer consumer,
      HandlerRegistry registry,
      Dispatch dispatch,
      KeepAlive keepAlive,
      Notices notices) {
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.keepAlive = Objects.requireNonNull(keepAlive, "keepAlive");
    this.notices = Objects.requireNonNull(notices, "notices");
  }

  /**
   * The wait a nak asks for after a failed delivery.
   *
   * @param deliveredCount the failed delivery's count
   * @return {@link VerdictRules#delayAfter}
   */
  public static Duration redeliveryDelay(int deliveredCount) {
    return VerdictRules.delayAfter(deliveredCount);
  }

  /**
   * Dispatches one message and answers it.
   *
   * @param message the message
   * @return the verdict answered
   */
  public Verdict handle(InboundMessage message) {
    Optional<Event> parsed = message.event();
    if (parsed.isEmpty()) {
      LOG.warn(
          "bus message is not an event of the log, terminated: bothy.bus.durable={}",
          consumer.durable());
      message.term();
      return Verdict.TERM;
    }
    Event event = parsed.get();
    List<HandlerRegistry.Registered> handlers =
        registry.interested(event.type()).stream()
            .filter(r -> r.consumer().durable().equals(consumer.durable()))
            .toList();
    if (handlers.isEmpty()) {
      message.ack();
      return Verdict.ACK;
    }
    int count = Math.max(1, message.deliveredCount());
    Dispatch.Result result;
    KeepAlive.Hold hold = keepAlive.hold(message::inProgress);
    try {
      result = dispatch.deliver(event, handlers, count);
    } catch (RuntimeException e) {
      LOG.warn(
          "bus dispatch failed before a verdict, delivered again later: bothy.bus.durable={}"
              + " bothy.event.seq={} error.type={} attempt={}",
          consumer.durable(),
          event.seq(),
          e.getClass().getName(),
          count);
      message.nakWithDelay(redeliveryDelay(count));
      return Verdict.NAK;
    } finally {
      hold.close();
    }
    List<String> dead =
        result.perHandler().entrySet().stream()
            .filter(e -> e.getValue().equals(Verdict.TERM.code()))
            .map(Map.Entry::getKey)
            .toList();
    if (!dead.isEmpty()) {
      notices.publish(DEAD_SUBJECT_PREFIX + consumer.durable(), deadNotice(event, dead, count));
    }
    switch (result.verdict()) {
      case ACK -> message.ack();
      case NAK -> message.nakWithDelay(result.nakDelay().orElseThrow());
      case TERM -> message.term();
    }
    return result.verdict();
  }

  /**
   * The body of a dead-letter notice: ids, names and numbers only, never the payload.
   *
   * @param event the event
   * @param handlers the handlers that got a dead letter in this delivery
   * @param deliveries the delivery count
   * @return UTF-8 JSON
   */
  byte[] deadNotice(Event event, List<String> handlers, int deliveries) {
    StringBuilder json = new StringBuilder(256);
    json.append("{\"durable\":\"").append(consumer.durable()).append('"');
    json.append(",\"event_id\":\"").append(event.id()).append('"');
    json.append(",\"event_seq\":").append(event.seq());
    // Event types and handler names are checked names (dotted lower case): no escaping needed.
    json.append(",\"event_type\":\"").append(event.type()).append('"');
    json.append(",\"handlers\":[");
    for (int i = 0; i < handlers.size(); i++) {
      json.append(i == 0 ? "" : ",").append('"').append(handlers.get(i)).append('"');
    }
    json.append("],\"deliveries\":").append(deliveries).append('}');
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }
}
