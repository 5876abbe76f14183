package dev.bothy.bus;

import dev.bothy.bus.domain.HandlerNames;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A bus consumer a module owns: a durable name and its handlers. On NATS it is one durable pull
 * consumer of {@code EVENTS} filtered to its handlers' types; on the log each event of those types
 * becomes one {@code bus.dispatch} job per handler that takes it (ADR 0024).
 *
 * <pre>{@code
 * new BusConsumer("system_echo", List.of(BusHandler.of("system.echo", PINGED, echo)))
 * }</pre>
 *
 * <p>A consumer whose tables are a function of the events alone declares itself a projection
 * ({@link #projection(String, List, Projection)}): {@code bus replay <durable>} rebuilds it, and
 * refuses every other consumer (ADR 0027).
 *
 * @param durable {@code <module>_<name>}
 * @param handlers one or more, each of the durable's module, names unique
 * @param projection present for a projection: its tables and how they are emptied
 */
public record BusConsumer(
    String durable, List<BusHandler<?>> handlers, Optional<Projection> projection) {
  /**
   * Declares a consumer that is not a projection: its effects are not rebuilt from the events (it
   * appends events, changes records, calls outside), so it is never replayed.
   *
   * @param durable {@code <module>_<name>}
   * @param handlers one or more, each of the durable's module, names unique
   */
  public BusConsumer(String durable, List<BusHandler<?>> handlers) {
    this(durable, handlers, Optional.empty());
  }

  /**
   * Declares a projection consumer, which {@code bus replay} may rebuild.
   *
   * @param durable {@code <module>_<name>}
   * @param handlers one or more, each of the durable's module, names unique; they follow the rules
   *     of {@link Projection}
   * @param projection its tables and how they are emptied
   * @return the consumer
   */
  public static BusConsumer projection(
      String durable, List<BusHandler<?>> handlers, Projection projection) {
    return new BusConsumer(durable, handlers, Optional.of(projection));
  }

  /** Checks the names; a malformed or duplicate name fails here, at the module's wiring. */
  public BusConsumer {
    Objects.requireNonNull(projection, "projection");
    if (!HandlerNames.validDurable(durable)) {
      throw new IllegalArgumentException(
          "a bus consumer's durable name is <module>_<name>, lower case, at most "
              + HandlerNames.MAX_LENGTH
              + " characters: "
              + durable);
    }
    handlers = List.copyOf(handlers);
    if (handlers.isEmpty()) {
      throw new IllegalArgumentException("the bus consumer " + durable + " has no handler");
    }
    String module = HandlerNames.moduleOf(durable);
    Set<String> names = new HashSet<>();
    for (BusHandler<?> h : handlers) {
      if (!HandlerNames.moduleOf(h.name()).equals(module)) {
        throw new IllegalArgumentException(
            "the handler " + h.name() + " of the bus consumer " + durable + " is not of " + module);
      }
      if (!names.add(h.name())) {
        throw new IllegalArgumentException(
            "the bus consumer " + durable + " declares the handler " + h.name() + " twice");
      }
    }
  }

  /**
   * Returns the module that owns the consumer.
   *
   * @return the part of the durable before its first {@code _}
   */
  public String module() {
    return HandlerNames.moduleOf(durable);
  }

  /**
   * Tells whether the consumer is a projection.
   *
   * @return true when it declared a {@link Projection}
   */
  public boolean isProjection() {
    return projection.isPresent();
  }

  /**
   * Returns the names of its handlers.
   *
   * @return the handlers' names, in declaration order
   */
  public List<String> handlerNames() {
    return handlers.stream().map(BusHandler::name).toList();
  }
}
