package dev.bothy.wire;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import dev.bothy.bus.BusConsumerState;
import dev.bothy.bus.BusPullFailure;
import dev.bothy.bus.DispatchMetrics;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The dispatch metrics of bus consumers in the Dropwizard registry, labelled through {@link
 * LabelledDropwizardExports}:
 *
 * <ul>
 *   <li>{@code bothy_bus_dispatch_total{bothy_bus_handler, bothy_bus_outcome}}: deliveries of an
 *       event to a handler by outcome ({@code ack}, {@code duplicate}, {@code parked}, {@code
 *       paused}, {@code nak}, {@code term});
 *   <li>{@code bothy_bus_handler_seconds{bothy_bus_handler}}: the handler's unit of work, the
 *       delivery row included (summary);
 *   <li>{@code bothy_bus_dead_letters_total{bothy_bus_handler}}: dead letters written, what the
 *       alert BothyBusDeadLetters watches; at zero from the start in the processes that dispatch;
 *   <li>on NATS, per durable this process pulls from, sampled from its consumer info every {@code
 *       bus.consumers.infoInterval}: {@code bothy_bus_consumer_pending{bothy_bus_durable}}, {@code
 *       bothy_bus_consumer_ack_pending{bothy_bus_durable}} and {@code
 *       bothy_bus_consumer_redelivered{bothy_bus_durable}}.
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
  static final String PENDING = "bothy.bus.consumer_pending";
  static final String ACK_PENDING = "bothy.bus.consumer_ack_pending";
  static final String REDELIVERED = "bothy.bus.consumer_redelivered";
  static final String DURABLE = "bothy_bus_durable";
  static final String PULL_CHECK = "bus_consumers";

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

  /**
   * Registers every handler's dead-letter counter at zero, for the processes that dispatch: a
   * labelled counter otherwise first appears at its first use, already at 1, and {@code increase()}
   * in the alert BothyBusDeadLetters sees no step in a series that starts there.
   *
   * @param registry the metric registry
   * @param handlers the registered handlers' names, a closed set fixed at start
   */
  static void registerDeadLetterCounters(MetricRegistry registry, Collection<String> handlers) {
    for (String handler : handlers) {
      registry.counter(LabelledDropwizardExports.name(DEAD_LETTERS, HANDLER, handler));
    }
  }

  /**
   * Registers the gauges of the NATS durables this process pulls from; the values are the last
   * sample, absent before the first one.
   *
   * @param registry the metric registry
   * @param durables the durables' names, a closed set fixed at start
   * @param states the sampled states ({@code BusDispatchModule.natsConsumerStates})
   */
  static void registerConsumerGauges(
      MetricRegistry registry,
      Collection<String> durables,
      Supplier<List<BusConsumerState>> states) {
    for (String durable : durables) {
      gauge(registry, PENDING, durable, states, BusConsumerState::pending);
      gauge(registry, ACK_PENDING, durable, states, BusConsumerState::ackPending);
      gauge(registry, REDELIVERED, durable, states, BusConsumerState::redelivered);
    }
  }

  /**
   * Registers the health check {@code bus_consumers}: unhealthy while a NATS durable's pulls in
   * this process fail, naming each durable, since when and the error's type; healthy again at its
   * first pull that succeeds.
   *
   * @param health the health check registry
   * @param failures the failing durables ({@code BusDispatchModule.natsPullFailures})
   */
  static void registerPullHealth(
      HealthCheckRegistry health, Supplier<List<BusPullFailure>> failures) {
    health.register(
        PULL_CHECK,
        new HealthCheck() {
          @Override
          protected Result check() {
            List<BusPullFailure> failing = failures.get();
            if (failing.isEmpty()) {
              return Result.healthy();
            }
            StringBuilder text =
                new StringBuilder("pulls failing, retried every")
                    .append(" bus.consumers.fetchWait:");
            for (BusPullFailure f : failing) {
              text.append(' ')
                  .append(f.durable())
                  .append(" since ")
                  .append(f.since())
                  .append(" (")
                  .append(f.errorType())
                  .append(");");
            }
            return Result.unhealthy(text.toString());
          }
        });
  }

  private static void gauge(
      MetricRegistry registry,
      String base,
      String durable,
      Supplier<List<BusConsumerState>> states,
      ToLongFunction<BusConsumerState> value) {
    registry.register(
        LabelledDropwizardExports.name(base, DURABLE, durable),
        (Gauge<Long>)
            () ->
                states.get().stream()
                    .filter(s -> s.durable().equals(durable))
                    .findFirst()
                    .map(value::applyAsLong)
                    .orElse(null));
  }
}
