package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import dev.bothy.bus.BusPullFailure;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The health check {@code bus_consumers} follows the failing stretches of the pull loops. */
class BusPullHealthTest {
  @Test
  void failing_pulls_make_the_check_unhealthy_naming_durable_time_and_error_type() {
    HealthCheckRegistry health = new HealthCheckRegistry();
    List<BusPullFailure> failing = new CopyOnWriteArrayList<>();
    BusDispatchMetrics.registerPullHealth(health, () -> failing);

    assertThat(health.runHealthCheck("bus_consumers").isHealthy()).isTrue();

    failing.add(
        new BusPullFailure(
            "system_echo",
            Instant.parse("2026-12-06T10:15:30Z"),
            "io.nats.client.JetStreamApiException"));
    HealthCheck.Result result = health.runHealthCheck("bus_consumers");

    assertThat(result.isHealthy()).isFalse();
    assertThat(result.getMessage())
        .isEqualTo(
            "pulls failing, retried every bus.consumers.fetchWait: system_echo since"
                + " 2026-12-06T10:15:30Z (io.nats.client.JetStreamApiException);");

    failing.clear();
    assertThat(health.runHealthCheck("bus_consumers").isHealthy()).isTrue();
  }
}
