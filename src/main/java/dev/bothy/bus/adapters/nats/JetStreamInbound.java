package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.app.InboundMessage;
import dev.bothy.sync.Event;
import io.nats.client.Message;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** A JetStream message of a bus consumer's durable, as dispatch sees it. */
public final class JetStreamInbound implements InboundMessage {
  private final Message message;

  /**
   * Wraps a message.
   *
   * @param message a message from a pull of the durable
   */
  public JetStreamInbound(Message message) {
    this.message = Objects.requireNonNull(message, "message");
  }

  @Override
  public Optional<Event> event() {
    String traceparent =
        message.hasHeaders() ? message.getHeaders().getFirst(EventMessage.TRACEPARENT) : null;
    return EventMessage.parse(message.getData(), traceparent);
  }

  @Override
  public int deliveredCount() {
    return (int) Math.min(Integer.MAX_VALUE, message.metaData().deliveredCount());
  }

  @Override
  public void ack() {
    message.ack();
  }

  @Override
  public void nakWithDelay(Duration delay) {
    message.nakWithDelay(delay);
  }

  @Override
  public void term() {
    message.term();
  }

  @Override
  public void inProgress() {
    message.inProgress();
  }
}
