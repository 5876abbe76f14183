package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** {@code /healthcheck} shows no error message and no stack trace. */
class RedactedHealthChecksTest {
  @Test
  void a_failing_check_reports_its_error_type_and_sqlstate_without_message_or_stack_trace() {
    HealthCheckRegistry registry = new HealthCheckRegistry();
    registry.register(
        "before",
        new HealthCheck() {
          @Override
          protected Result check() {
            return Result.unhealthy(new IllegalStateException("registered before, secret"));
          }
        });
    RedactedHealthChecks.install(registry);
    assertThat(registry.runHealthCheck("before").getMessage()).doesNotContain("secret");
    // Registered after the install, as Hikari does when its pool starts.
    registry.register(
        "pool",
        new HealthCheck() {
          @Override
          protected Result check() {
            return Result.unhealthy(
                new SQLTransientConnectionException(
                    "cannot reach db.example.com:5432 as alex", "08001"));
          }
        });
    registry.register(
        "worded",
        new HealthCheck() {
          @Override
          protected Result check() {
            return Result.unhealthy("the relay is halted; see the runbook");
          }
        });
    registry.register(
        "thrown",
        new HealthCheck() {
          @Override
          protected Result check() {
            throw new IllegalStateException("secret token abc");
          }
        });

    HealthCheck.Result pool = registry.runHealthCheck("pool");
    assertThat(pool.isHealthy()).isFalse();
    assertThat(pool.getError()).as("no stack trace on the admin port").isNull();
    assertThat(pool.getMessage())
        .isEqualTo("failed: error.type=java.sql.SQLTransientConnectionException sqlstate=08001")
        .doesNotContain("example.com");
    assertThat(registry.runHealthCheck("worded").getMessage())
        .as("a check's own words stay")
        .isEqualTo("the relay is halted; see the runbook");
    HealthCheck.Result thrown = registry.runHealthCheck("thrown");
    assertThat(thrown.isHealthy()).isFalse();
    assertThat(thrown.getError()).isNull();
    assertThat(thrown.getMessage()).doesNotContain("secret");
    assertThat(registry.getNames()).containsExactlyInAnyOrder("before", "pool", "worded", "thrown");
  }

  @Test
  void a_healthy_check_stays_healthy() {
    HealthCheckRegistry registry = new HealthCheckRegistry();
    RedactedHealthChecks.install(registry);
    registry.register(
        "fine",
        new HealthCheck() {
          @Override
          protected Result check() {
            return Result.healthy("up");
          }
        });
    HealthCheck.Result fine = registry.runHealthCheck("fine");
    assertThat(fine.isHealthy()).isTrue();
    assertThat(fine.getMessage()).isEqualTo("up");
  }
}
