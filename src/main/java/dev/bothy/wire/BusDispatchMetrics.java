package dev.bothy.wire;

import com.codahale.metrics.MetricRegistry;
import dev.bothy.bus.DispatchMetrics;
import java.util.concurrent.TimeUnit;

/**
 * The dispatch metrics of bus consumers in the Dropwizard registry, labelled through {@link
 * LabelledDropwizardExports}:
 *
 * <ul>
 *   <li>{@code bothy_bus_dispatch_total{bothy_bus_handler, bothy_bus_outcome}}: deliveries of an
 *       event to a handler by outcome ({@code ack}, {@code duplicate}, {@code parked}, {@code nak},
 *       {@code term});
 *   <li>{@code bothy_bus_handler_seconds{bothy_bus_handler}}: the handler's unit of work, the
 *       delivery row included (summary);
 *   <li>{@code bothy_bus_dead_letters_total{bothy_bus_handler}}: dead letters written, what the
 *       alert BothyBusDeadLetters watches.
 * </ul>
 *
 * <p>The handler label's values are the registered handler names, a closed set fixed at start.
 */
final class BusDispatchMetrics implements DispatchMetrics {
  static final String DISPATCH = "bothy.bus.dispatch";
  static final String HANDLER_SECONDS = "bothy.bus.handler_seconds";
  static final String DEAD_LETTERS = "bothy.bus.dead_letters";
  static final String HANDLER = "bothy_bus_handler";
  static final String OUTCOME = "bothy_bus_outcome";

  private final MetricRegistry registry;

  BusDispatchMetrics(MetricRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void outcome(String handler, String outcome) {
    registry
        .counter(LabelledDropwizardExports.name(DISPATCH, HANDLER, handler, OUTCOME, outcome))
        .inc();
  }

  @Override
  public void handled(String handler, long nanos) {
    registry
        .timer(LabelledDropwizardExports.name(HANDLER_SECONDS, HANDLER, handler))
        .update(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  @Override
  public void deadLetter(String handler) {
    registry.counter(LabelledDropwizardExports.name(DEAD_LETTERS, HANDLER, handler)).inc();
  }
}
