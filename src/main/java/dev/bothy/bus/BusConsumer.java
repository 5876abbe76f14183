package dev.bothy.bus;

import dev.bothy.bus.domain.HandlerNames;
import java.util.HashSet;
import java.util.List;
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
 * @param durable {@code <module>_<name>}
 * @param handlers one or more, each of the durable's module, names unique
 */
public record BusConsumer(String durable, List<BusHandler<?>> handlers) {
  /** Checks the names; a malformed or duplicate name fails here, at the module's wiring. */
  public BusConsumer {
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
}
