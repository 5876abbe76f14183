package dev.bothy.platform.pg;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/** Builds the HikariCP configuration of Bothy's pools. */
public final class Pools {
  /**
   * The pgjdbc connection property that, when true (the driver's default), appends the server's
   * {@code DETAIL} of an error to the exception's message: for a unique violation that is the key
   * value ({@code Key (k)=(...) already exists}), so a row's data would travel wherever the message
   * goes. Every connection Bothy opens sets it to {@code false}; the SQLSTATE and the server's
   * message stay.
   */
  public static final String LOG_SERVER_ERROR_DETAIL = "logServerErrorDetail";

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
    config.addDataSourceProperty(LOG_SERVER_ERROR_DETAIL, "false");
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

  /**
   * Opens one connection outside any pool, with the same driver properties as the pools: for a
   * connection that lives apart from them, such as the LISTEN connection.
   *
   * @param settings the URL, user, password, application name and connect timeout
   * @return the open connection; the caller closes it
   * @throws SQLException when the connect fails, or {@code 08001} when the URL is not PostgreSQL's
   */
  public static Connection connect(PoolSettings settings) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", settings.user());
    if (settings.password() != null) {
      properties.setProperty("password", settings.password());
    }
    properties.setProperty("ApplicationName", settings.applicationName());
    properties.setProperty(LOG_SERVER_ERROR_DETAIL, "false");
    properties.setProperty(
        "connectTimeout", Long.toString(Math.max(1, settings.connectionTimeout().toSeconds())));
    Connection c = new org.postgresql.Driver().connect(settings.url(), properties);
    if (c == null) {
      throw new SQLException("not a PostgreSQL JDBC URL (database.url)", "08001");
    }
    return c;
  }
}
