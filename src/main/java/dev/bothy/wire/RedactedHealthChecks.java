package dev.bothy.wire;

import com.codahale.metrics.health.AsyncHealthCheckDecorator;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.codahale.metrics.health.HealthCheckRegistryListener;
import dev.bothy.kernel.ErrorFields;

/**
 * Keeps error messages and stack traces out of {@code /healthcheck}: the admin port has no
 * authentication, and an exception's message can name a host, a user or a statement (HikariCP's
 * connectivity check reports the driver's exception as it is). A failing check with an error
 * reports {@code failed: error.type=... sqlstate=...} instead, as the log does ({@link
 * ErrorFields}); a check's own words, without an error, stay. Checks marked {@code @Async} (none
 * today) keep their own results.
 */
final class RedactedHealthChecks {
  private RedactedHealthChecks() {}

  /**
   * Wraps every check registered from now on, and those registered already.
   *
   * @param registry the process's health checks
   */
  static void install(HealthCheckRegistry registry) {
    registry.addListener(
        new HealthCheckRegistryListener() {
          @Override
          public void onHealthCheckAdded(String name, HealthCheck check) {
            // Called right after register put the check: it is replaced before the process
            // serves the admin port, since every check is registered while the process assembles.
            // An asynchronous check is left alone: unregistering it would stop its schedule.
            if (!(check instanceof Redacted) && !(check instanceof AsyncHealthCheckDecorator)) {
              registry.unregister(name);
              registry.register(name, new Redacted(check));
            }
          }

          @Override
          public void onHealthCheckRemoved(String name, HealthCheck check) {}
        });
  }

  /** A check whose failures carry the error's type and SQLSTATE only. */
  private static final class Redacted extends HealthCheck {
    private final HealthCheck inner;

    Redacted(HealthCheck inner) {
      this.inner = inner;
    }

    @Override
    protected Result check() {
      // execute() turns a thrown exception into an unhealthy result with that error.
      Result result = inner.execute();
      Throwable error = result.getError();
      if (result.isHealthy() || error == null) {
        return result;
      }
      return Result.unhealthy(
          "failed: error.type="
              + ErrorFields.type(error)
              + " sqlstate="
              + ErrorFields.sqlState(error));
    }
  }
}
