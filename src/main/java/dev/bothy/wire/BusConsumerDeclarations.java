package dev.bothy.wire;

import dev.bothy.bus.BusConsumer;
import dev.bothy.system.SystemModule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one list of every module's bus consumers, by module: what {@code Assembly} registers in every
 * role and what {@code bus replay} looks a durable up in (the projections among them are the
 * consumers that declare a {@code Projection}, ADR 0027). A module with bus consumers adds one line
 * here.
 */
final class BusConsumerDeclarations {
  private BusConsumerDeclarations() {}

  /**
   * Returns every module's bus consumers.
   *
   * @return the consumers by module name, in registration order
   */
  static Map<String, List<BusConsumer>> all() {
    Map<String, List<BusConsumer>> all = new LinkedHashMap<>();
    all.put("system", SystemModule.busConsumers());
    return all;
  }

  /**
   * Returns every module's bus consumers in one list.
   *
   * @return the consumers, in registration order
   */
  static List<BusConsumer> consumers() {
    return all().values().stream().flatMap(List::stream).toList();
  }
}
