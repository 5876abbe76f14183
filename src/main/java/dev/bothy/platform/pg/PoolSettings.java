package dev.bothy.platform.pg;

import java.time.Duration;
import java.util.Objects;

/**
 * What a HikariCP pool needs, taken from the {@code database} configuration section.
 *
 * @param url the JDBC URL
 * @param user the role to connect as
 * @param password its password, or null (trust, peer or a {@code .pgpass})
 * @param maxPoolSize {@code database.maxPoolSize}
 * @param connectionTimeout {@code database.connectionTimeout}: how long a caller waits for a
 *     connection from the pool
 * @param applicationName shown in {@code pg_stat_activity.application_name}
 */
public record PoolSettings(
    String url,
    String user,
    String password,
    int maxPoolSize,
    Duration connectionTimeout,
    String applicationName) {

  /** Checks the values; the configuration has validated them already. */
  public PoolSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    Objects.requireNonNull(applicationName, "applicationName");
    if (maxPoolSize < 1) {
      throw new IllegalArgumentException("maxPoolSize must be at least 1");
    }
  }

  /** Never shows the password. */
  @Override
  public String toString() {
    return "PoolSettings[url=" + url + ", user=" + user + ", maxPoolSize=" + maxPoolSize + "]";
  }
}
