package dev.bothy.wire;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import dev.bothy.bus.RelayState;
import dev.bothy.bus.RelayView;
import dev.bothy.bus.app.RelayMetrics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The relay's metrics and health checks, in every role that runs a relay ({@code bus.nats.url}
 * set):
 *
 * <ul>
 *   <li>{@code bothy_bus_relay_lag}: the log's head minus the relay's cursor, read from the
 *       database (so every process shows it, whichever holds the lease), bounded by {@code
 *       database.metricsReadTimeout} and absent on a failed read;
 *   <li>{@code bothy_bus_relay_up}: 1 while this process's relay is active or standing by with its
 *       NATS connection up, 0 while NATS is away or the relay is halted;
 *   <li>{@code bothy_bus_relay_active}: 1 in the process that holds the lease;
 *   <li>{@code bothy_bus_nats_connected}: 1 while the relay's NATS connection is up;
 *   <li>{@code bothy_bus_stream_behind_log}: 1 while the relay is halted because the stream and the
 *       log disagree;
 *   <li>{@code bothy_bus_relay_published_events_total} and {@code
 *       bothy_bus_relay_duplicates_total}: events the stream acknowledged in order, and those of
 *       them it had already (republished);
 *   <li>{@code bothy_bus_relay_publish_seconds}: a histogram of the time from a window's first
 *       publish to its last ack, in the buckets {@link #PUBLISH_BUCKETS}.
 * </ul>
 *
 * <p>Health checks on {@code /healthcheck}: {@code bus_nats} fails while the NATS connection is
 * away, {@code bus_stream_behind_log} while the relay is halted; readiness does not look at them,
 * so an {@code api} process keeps taking appends.
 */
final class BusRelayMetrics implements RelayMetrics {
  static final String LAG = "bothy.bus.relay.lag";
  static final String UP = "bothy.bus.relay.up";
  static final String ACTIVE = "bothy.bus.relay.active";
  static final String CONNECTED = "bothy.bus.nats.connected";
  static final String BEHIND = "bothy.bus.stream.behind_log";
  static final String PUBLISHED = "bothy.bus.relay.published_events";
  static final String DUPLICATES = "bothy.bus.relay.duplicates";
  static final String PUBLISH = "bothy.bus.relay.publish";

  /**
   * The upper bounds in seconds of {@code bothy_bus_relay_publish_seconds}: from a millisecond (a
   * window on loopback) to the default {@code bus.relay.publishAckTimeout}, beyond which a window
   * fails and is not recorded; roughly 1, 2.5, 5 per decade, as Prometheus's own defaults.
   */
  static final double[] PUBLISH_BUCKETS = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
  };

  /** The health check that fails while the relay's NATS connection is away. */
  static final String NATS_CHECK = "bus_nats";

  /** The health check that fails while the relay is halted. */
  static final String BEHIND_CHECK = "bus_stream_behind_log";

  private final Counter published;
  private final Counter duplicates;
  private final Timer publish;

  BusRelayMetrics(MetricRegistry registry) {
    this.published = registry.counter(PUBLISHED);
    this.duplicates = registry.counter(DUPLICATES);
    this.publish = registry.timer(PUBLISH, () -> BucketTimer.of(PUBLISH_BUCKETS));
  }

  @Override
  public void published(int events, int duplicateEvents) {
    published.inc(events);
    duplicates.inc(duplicateEvents);
  }

  @Override
  public void window(Duration publishToLastAck) {
    publish.update(publishToLastAck.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Registers the gauges and the health checks over the relay's view.
   *
   * @param registry the metric registry
   * @param health the health check registry
   * @param relay the relay's state and lag
   * @param reads bounds the lag's database read
   */
  static void registerGauges(
      MetricRegistry registry, HealthCheckRegistry health, RelayView relay, ScrapeReads reads) {
    registry.register(
        LAG,
        new CachedGauge<Long>(1, TimeUnit.SECONDS) {
          @Override
          protected Long loadValue() {
            return reads.read(relay::lag);
          }
        });
    registry.register(UP, (Gauge<Integer>) () -> up(relay.state()) ? 1 : 0);
    registry.register(
        ACTIVE, (Gauge<Integer>) () -> relay.state().mode() == RelayState.Mode.ACTIVE ? 1 : 0);
    registry.register(CONNECTED, (Gauge<Integer>) () -> relay.state().natsConnected() ? 1 : 0);
    registry.register(
        BEHIND, (Gauge<Integer>) () -> relay.state().mode() == RelayState.Mode.HALTED ? 1 : 0);
    health.register(
        NATS_CHECK,
        new HealthCheck() {
          @Override
          protected Result check() {
            return relay.state().natsConnected()
                ? Result.healthy()
                : Result.unhealthy(
                    "the bus relay's NATS connection is away; it reconnects, appends go on");
          }
        });
    health.register(
        BEHIND_CHECK,
        new HealthCheck() {
          @Override
          protected Result check() {
            RelayState state = relay.state();
            if (state.halt().isEmpty()) {
              return Result.healthy();
            }
            RelayState.Halt halt = state.halt().get();
            return Result.unhealthy(
                "the bus relay is halted ("
                    + halt.reason().code()
                    + "): stream last Bothy-Seq "
                    + halt.streamLast()
                    + ", relay cursor "
                    + halt.cursor()
                    + "; see the runbook, bus republish --from SEQ");
          }
        });
  }

  private static boolean up(RelayState state) {
    return state.natsConnected()
        && (state.mode() == RelayState.Mode.ACTIVE || state.mode() == RelayState.Mode.STANDBY);
  }
}
