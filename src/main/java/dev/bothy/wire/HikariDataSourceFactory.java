package dev.bothy.wire;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.pool.HikariPool;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.Pools;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.EmbeddedConfig;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.util.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bothy's {@link PooledDataSourceFactory}: HikariCP pools for the server roles and for the {@code
 * db} commands, from the {@code database} section.
 *
 * <p>With {@code database.url} set it connects as {@code database.user} (runtime) or {@code
 * database.migrationUser} (migrations). Without it, it starts the embedded PostgreSQL on {@code
 * database.embedded.dataDirectory}, applies the changelog as the embedded superuser (runtime only:
 * the {@code db} commands do what they are asked on the directory as it is), and connects as {@code
 * database.user} (runtime) or the superuser ({@code db} commands, which need no roles to exist
 * first); the pool then owns the server and stops it when it closes.
 */
public final class HikariDataSourceFactory implements PooledDataSourceFactory {
  private static final Logger LOG = LoggerFactory.getLogger(HikariDataSourceFactory.class);

  /** Whom a pool serves. */
  public enum Purpose {
    /** The server roles: connects as {@code database.user}. */
    RUNTIME,
    /** The {@code db} commands: connects as {@code database.migrationUser}. */
    MIGRATION
  }

  private final DatabaseConfig config;
  private final Purpose purpose;
  private final String applicationName;
  private final HealthCheckRegistry healthChecks;
  private final java.time.Duration exitGrace;
  private boolean singleConnection;

  /**
   * Creates a factory.
   *
   * @param config the {@code database} section
   * @param purpose runtime or migration
   * @param applicationName shown in {@code pg_stat_activity}, such as {@code "bothy-worker"}
   * @param healthChecks where the pool registers its connectivity check, or null
   * @param exitGrace in the embedded default, how long the JVM exit waits for the pool's owner to
   *     stop the embedded server before stopping it itself (the whole shutdown's budget)
   */
  public HikariDataSourceFactory(
      DatabaseConfig config,
      Purpose purpose,
      String applicationName,
      HealthCheckRegistry healthChecks,
      java.time.Duration exitGrace) {
    this.config = config;
    this.purpose = purpose;
    this.applicationName = applicationName;
    this.healthChecks = healthChecks;
    this.exitGrace = exitGrace;
  }

  /**
   * Tells Dropwizard not to prefix statements with comments; jOOQ and Liquibase do not need them.
   *
   * @return false
   */
  @Override
  public boolean isAutoCommentsEnabled() {
    return false;
  }

  /**
   * Returns extra driver properties: none, the pool sets the application name itself.
   *
   * @return an empty map
   */
  @Override
  public Map<String, String> getProperties() {
    return Map.of();
  }

  /**
   * Returns no validation query timeout: HikariCP validates with {@code Connection.isValid}.
   *
   * @return empty
   */
  @Override
  public Optional<Duration> getValidationQueryTimeout() {
    return Optional.empty();
  }

  /**
   * Returns no validation query: HikariCP validates with {@code Connection.isValid}.
   *
   * @return empty
   */
  @Override
  public Optional<String> getValidationQuery() {
    return Optional.empty();
  }

  /**
   * Returns the PostgreSQL JDBC driver class.
   *
   * @return {@code org.postgresql.Driver}
   */
  @Override
  public String getDriverClass() {
    return "org.postgresql.Driver";
  }

  /**
   * Returns {@code database.url}.
   *
   * @return the URL, or null in the embedded default, whose URL exists only once the server runs
   */
  @Override
  public String getUrl() {
    return config.url().orElse(null);
  }

  /** Makes the next pool a single connection, as the {@code db} commands ask. */
  @Override
  public void asSingleConnectionPool() {
    singleConnection = true;
  }

  /**
   * Builds and starts the pool (and, without {@code database.url}, the embedded server).
   *
   * @param metrics where the pool's metrics go
   * @param name the pool name, prefix of its metrics
   * @return the started pool
   * @throws BothyException {@code unavailable} when the database cannot be reached; the message
   *     names the keys to check
   */
  @Override
  public ManagedDataSource build(MetricRegistry metrics, String name) {
    return buildPool(metrics, name);
  }

  /**
   * Builds and starts the pool, typed as the HikariCP pool whose {@code stop()} throws nothing.
   *
   * @param metrics where the pool's metrics go
   * @param name the pool name, prefix of its metrics
   * @return the started pool
   * @throws BothyException as {@link #build(MetricRegistry, String)}
   */
  ManagedHikariDataSource buildPool(MetricRegistry metrics, String name) {
    EmbeddedPostgresServer embedded = null;
    String url;
    String user;
    String password;
    if (config.url().isPresent()) {
      url = config.url().get();
      user = purpose == Purpose.RUNTIME ? config.user() : config.migrationUser();
      password =
          (purpose == Purpose.RUNTIME ? config.password() : config.migrationPassword())
              .orElse(null);
    } else {
      embedded = startEmbedded();
      url = embedded.jdbcUrl("postgres");
      user = purpose == Purpose.RUNTIME ? config.user() : EmbeddedPostgresServer.SUPERUSER;
      // Every role logs in with the server's generated password (D-SEC-2).
      password = embedded.password();
    }
    int size = singleConnection ? 1 : config.maxPoolSize();
    PoolSettings settings =
        new PoolSettings(
            url,
            user,
            password,
            size,
            config.connectionTimeout().toJavaDuration(),
            applicationName);
    HikariConfig hikari = Pools.config(settings, name, metrics, healthChecks);
    try {
      return new ManagedHikariDataSource(hikari, embedded);
    } catch (HikariPool.PoolInitializationException e) {
      if (embedded != null) {
        embedded.close();
      }
      String keys =
          purpose == Purpose.RUNTIME
              ? "database.url, database.user, database.password"
              : "database.url, database.migrationUser, database.migrationPassword";
      throw BothyException.unavailable(
          "cannot connect to the database as " + user + " (check " + keys + "): " + rootMessage(e),
          e);
    }
  }

  private EmbeddedPostgresServer startEmbedded() {
    EmbeddedConfig embedded = config.embedded();
    LOG.warn(
        "database.url is not set: starting the embedded PostgreSQL, which is for development"
            + " only; set database.url for production");
    EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            Path.of(embedded.dataDirectory()),
            embedded.port(),
            embedded.startupWait().toJavaDuration(),
            exitGrace,
            embedded.durable()
                ? EmbeddedPostgresServer.Durability.DURABLE
                : EmbeddedPostgresServer.Durability.THROWAWAY);
    if (purpose == Purpose.MIGRATION) {
      // The db command does what it was asked on the directory as it is: db migrate applies the
      // changelog, a dry run prints it, db status lists what is pending (D-CK-18).
      return server;
    }
    try {
      List<String> applied = Migrator.migrate(server.superuserDataSource());
      // One line instead of Liquibase's lines per changeset, which a newcomer reads as noise.
      LOG.info(
          "embedded database migrated: schema_version={} changesets_applied={}",
          Migrator.SCHEMA_VERSION,
          applied);
      MigrationRecorder.record(server.superuserDataSource(), config.txSettings());
      server.setPassword(config.user());
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /**
   * The message of the deepest cause: the driver's own words (a refused connection, a role that may
   * not log in), which the pool's wrappers bury under their own.
   *
   * @param t the failure
   * @return the root cause's message
   */
  static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage();
  }
}
