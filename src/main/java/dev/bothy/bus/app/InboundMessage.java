package dev.bothy.bus.app;

import dev.bothy.sync.Event;
import java.time.Duration;
import java.util.Optional;

/**
 * One message of a bus consumer's durable as dispatch sees it, and the verbs it may answer with;
 * {@code adapters.nats} wraps a JetStream message in it, so dispatch on NATS holds no NATS type.
 */
public interface InboundMessage {
  /**
   * Returns the event the message carries.
   *
   * @return the event, or empty when the body is not an event of the log
   */
  Optional<Event> event();

  /**
   * Returns how many times the server delivered this message, this time included.
   *
   * @return the delivery count, from 1
   */
  int deliveredCount();

  /** Acknowledges: the server forgets the message for this durable. */
  void ack();

  /**
   * Asks for a delivery again after a wait.
   *
   * @param delay the wait
   */
  void nakWithDelay(Duration delay);

  /** Stops every delivery of the message to this durable. */
  void term();

  /** Restarts the message's {@code ackWait}: the work goes on. */
  void inProgress();
}
