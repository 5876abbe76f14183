package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.BusModule;
import dev.bothy.bus.Streams;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay in a running process: an {@code api} with {@code bus.nats.url} relays what it appends,
 * its health checks and gauges tell when NATS is away, readiness and appends do not wait for NATS,
 * and the relay catches up when the server is back.
 */
class BusRelayWiringTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(60);

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Instant end = Instant.now().plus(WITHIN);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("timed out: " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void an_api_relays_its_appends_and_keeps_taking_them_while_nats_is_away() throws Exception {
    DropwizardTestSupport<BothyConfiguration> app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            (String) null,
            (String) null,
            application -> new RoleCommand(application, Role.API, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl),
            ConfigOverride.config("bus.nats.url", NATS.url()),
            ConfigOverride.config("bus.relay.pollInterval", "100ms"),
            ConfigOverride.config("bus.relay.publishAckTimeout", "1s"),
            ConfigOverride.config("bus.relay.leaseTimeout", "5s"),
            ConfigOverride.config("server.applicationConnectors[0].port", "0"),
            ConfigOverride.config("server.adminConnectors[0].port", "0"));
    app.before();
    try {
      Assembly assembly = app.<BothyApplication>getApplication().assembly();
      BusModule bus = assembly.bus().orElseThrow();
      Runnable append =
          () ->
              assembly
                  .unitOfWork()
                  .run(
                      () ->
                          assembly.appender().append(EventLogFixture.drafts(UUID.randomUUID(), 5)));
      append.run();
      long[] head = {assembly.eventLog().head()};
      await(() -> streamCount(bus) == head[0], "the stream holds the first events");
      assertThat(app.getEnvironment().healthChecks().runHealthCheck("bus_nats").isHealthy())
          .isTrue();
      assertThat(
              app.getEnvironment()
                  .healthChecks()
                  .runHealthCheck("bus_stream_behind_log")
                  .isHealthy())
          .isTrue();
      await(
          () -> gauge(app, BusRelayMetrics.ACTIVE) == 1 && gauge(app, BusRelayMetrics.LAG) == 0,
          "active with no lag");

      NATS.kill();
      await(
          () -> !app.getEnvironment().healthChecks().runHealthCheck("bus_nats").isHealthy(),
          "bus_nats fails while NATS is away");
      append.run();
      append.run();
      assertThat(assembly.readiness().failing()).isEmpty();
      assertThat(gauge(app, BusRelayMetrics.CONNECTED)).isZero();
      await(() -> gauge(app, BusRelayMetrics.LAG) == 10, "the lag counts what waits");

      NATS.restart();
      head[0] = assembly.eventLog().head();
      await(() -> streamCount(bus) == head[0], "the relay caught up after the restart");
      await(() -> gauge(app, BusRelayMetrics.LAG) == 0, "no lag after the catch-up");
    } finally {
      app.after();
    }
  }

  private static long streamCount(BusModule bus) {
    try {
      return bus.management().getStreamInfo(Streams.EVENTS).getStreamState().getMsgCount();
    } catch (Exception e) {
      return -1;
    }
  }

  private static long gauge(DropwizardTestSupport<BothyConfiguration> app, String name) {
    Object value = app.getEnvironment().metrics().getGauges().get(name).getValue();
    return value == null ? -1 : ((Number) value).longValue();
  }
}
