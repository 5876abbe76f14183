package dev.bothy.bus;

import dev.bothy.bus.domain.HandlerNames;
import dev.bothy.sync.EventType;
import java.time.Instant;
import java.util.Objects;

/**
 * One handler of a bus consumer: its name, the event type it takes and its function.
 *
 * <pre>{@code
 * BusHandler echo = BusHandler.of("system.echo", SystemEvents.PINGED,
 *     (tx, event, at) -> pings.markEchoed(event.payload().pingId(), at));
 * }</pre>
 *
 * @param name {@code <module>.<name>}, the key of {@code event_deliveries}
 * @param eventType the event type it takes
 * @param function what it does with each event
 * @param <P> the payload record type
 */
public record BusHandler<P extends Record>(
    String name, EventType<P> eventType, Function<P> function) {

  /**
   * What a handler does with one event, inside the transaction dispatch opened (ADR 0024).
   *
   * <p>Contract: it may run more than once for one event (after a retryable failure the same
   * delivery comes again), so every write converges: {@code ON CONFLICT DO NOTHING} inserts,
   * guarded updates ({@code ... WHERE status = 'pinged'}). It returns normally to ack. It throws a
   * {@link dev.bothy.kernel.BothyException} of a retryable kind to be delivered again later; any
   * other failure ends the event for this handler as a dead letter (ADR 0025).
   *
   * @param <P> the payload record type
   */
  @FunctionalInterface
  public interface Function<P extends Record> {
    /**
     * Handles one event.
     *
     * @param tx the transaction, for appends and after-commit side effects
     * @param event the event with its decoded payload
     * @param at the delivery time, stamped on {@code event_deliveries.handled_at}: use it for any
     *     time the handler stores
     * @throws Exception any failure; the transaction rolls back, the delivery row with it
     */
    void handle(Tx tx, BusEvent<P> event, Instant at) throws Exception;
  }

  /** Checks the components; a malformed name fails here, at the module's wiring. */
  public BusHandler {
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(function, "function");
    if (!HandlerNames.validHandler(name)) {
      throw new IllegalArgumentException(
          "a bus handler name is <module>.<name>, lower case, at most "
              + HandlerNames.MAX_LENGTH
              + " characters: "
              + name);
    }
  }

  /**
   * Declares a handler.
   *
   * @param name {@code <module>.<name>}
   * @param eventType the event type it takes
   * @param function what it does
   * @param <P> the payload record type
   * @return the handler
   * @throws IllegalArgumentException for a malformed name
   */
  public static <P extends Record> BusHandler<P> of(
      String name, EventType<P> eventType, Function<P> function) {
    return new BusHandler<>(name, eventType, function);
  }
}
