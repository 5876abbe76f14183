package dev.bothy.bus;

import java.util.List;
import java.util.Objects;

/**
 * The declaration that a {@link BusConsumer} is a projection: its handlers keep tables that are a
 * function of the events alone, so {@code bus replay <durable>} may empty them and build them again
 * from the start of the stream (NATS) or of the retained log (ADR 0027).
 *
 * <p>What a projection's handlers may do: write their own tables with converging writes, storing
 * only what the events say (the event's number, time and payload; never the delivery time {@code
 * at}, or a rebuild would differ from the original), and send live hints. They append no events:
 * dispatch refuses {@code Tx.append} for them, since a replay would append them again. They call
 * nothing outside either: a replay runs them once more for every retained event.
 *
 * <pre>{@code
 * BusConsumer.projection("system_echoes", handlers,
 *     new Projection(List.of("system_echoes"), echoes::deleteAll))
 * }</pre>
 *
 * @param tables the tables the reset empties, named in the command's output and logs
 * @param reset empties them inside the replay's unit of work
 */
public record Projection(List<String> tables, Reset reset) {
  /**
   * Empties a projection's tables, inside the unit of work that also deletes the consumer's
   * delivery rows: both commit together or neither does.
   */
  @FunctionalInterface
  public interface Reset {
    /**
     * Deletes every row of the projection's tables through the module's own store, which joins the
     * calling thread's unit of work as every store does.
     *
     * @return the number of rows deleted
     * @throws RuntimeException any failure; the replay's unit rolls back and nothing is reset
     */
    long reset();
  }

  /** Checks the components. */
  public Projection {
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("a projection names at least one table");
    }
    Objects.requireNonNull(reset, "reset");
  }
}
