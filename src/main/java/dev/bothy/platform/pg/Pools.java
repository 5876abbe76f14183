package dev.bothy.platform.pg;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;

/** Builds the HikariCP configuration of Bothy's pools. */
public final class Pools {
  private Pools() {}

  /**
   * Returns a HikariCP configuration with metrics and the connectivity health check.
   *
   * <p>Hikari registers its metrics under {@code <poolName>.pool.*} and the health check {@code
   * <poolName>.pool.ConnectivityCheck} when the pool starts.
   *
   * @param settings the pool settings
   * @param poolName the pool's name in metrics, logs and thread names
   * @param metrics the metric registry, or null for none
   * @param health the health check registry, or null for none
   * @return the configuration; the caller builds the pool from it
   */
  public static HikariConfig config(
      PoolSettings settings, String poolName, MetricRegistry metrics, HealthCheckRegistry health) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(poolName);
    config.setJdbcUrl(settings.url());
    config.setUsername(settings.user());
    if (settings.password() != null) {
      config.setPassword(settings.password());
    }
    config.setMaximumPoolSize(settings.maxPoolSize());
    // A fixed-size pool (Hikari's recommendation): minimumIdle defaults to the maximum.
    config.setConnectionTimeout(settings.connectionTimeout().toMillis());
    config.addDataSourceProperty("ApplicationName", settings.applicationName());
    // The counter pattern relies on READ COMMITTED: a unit that waited on a counter row lock
    // re-reads the committed value. Pinned here, once per connection, whatever the server's
    // default_transaction_isolation says.
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    if (metrics != null) {
      config.setMetricRegistry(metrics);
    }
    if (health != null) {
      config.setHealthCheckRegistry(health);
    }
    return config;
  }
}
