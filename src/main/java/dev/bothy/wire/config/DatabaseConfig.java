package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The {@code database} section: where PostgreSQL is and how Bothy uses it. */
@Doc("The PostgreSQL database, the pool and the unit of work.")
public class DatabaseConfig {
  /** Upper bound of {@code database.maxPoolSize}: beyond it PostgreSQL's own limits bite first. */
  public static final int MAX_POOL_SIZE_LIMIT = 1000;

  /** Lower bound of {@code database.connectionTimeout}, in ms: HikariCP refuses less. */
  public static final long MIN_CONNECTION_TIMEOUT_MILLIS = 250;

  /** Upper bound of the three session timeouts, in days: a longer one is a typo. */
  public static final long MAX_SESSION_TIMEOUT_DAYS = 1;

  /** Upper bound of {@code database.txMaxAttempts}: more attempts only hide a lock problem. */
  public static final int MAX_TX_ATTEMPTS_LIMIT = 100;

  /** Lower bound of {@code database.listenReconnectBackoffCap}, in ms: less would spin. */
  public static final long MIN_LISTEN_BACKOFF_CAP_MILLIS = 100;

  /** Default of {@code database.user}. */
  public static final String DEFAULT_USER = "bothy_app";

  /** Default of {@code database.migrationUser}. */
  public static final String DEFAULT_MIGRATION_USER = "bothy_owner";

  /** Default of {@code database.maxPoolSize}. */
  public static final int DEFAULT_MAX_POOL_SIZE = 10;

  /** Default of {@code database.connectionTimeout}. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.seconds(5);

  /** Default of {@code database.statementTimeout}. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.seconds(30);

  /** Default of {@code database.lockTimeout}. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.seconds(5);

  /** Default of {@code database.idleInTransactionTimeout}. */
  public static final Duration DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = Duration.seconds(60);

  /** Default of {@code database.txMaxAttempts}. */
  public static final int DEFAULT_TX_MAX_ATTEMPTS = 5;

  /** Default of {@code database.txRetryBaseDelay}. */
  public static final Duration DEFAULT_TX_RETRY_BASE_DELAY = Duration.milliseconds(10);

  /** Default of {@code database.txRetryMaxDelay}. */
  public static final Duration DEFAULT_TX_RETRY_MAX_DELAY = Duration.seconds(1);

  /** Default of {@code database.metricsReadTimeout}. */
  public static final Duration DEFAULT_METRICS_READ_TIMEOUT = Duration.seconds(1);

  /**
   * Upper bound of {@code database.metricsReadTimeout}, in seconds: Prometheus's default {@code
   * scrape_timeout} is 10s, and the scrape must answer before it.
   */
  public static final long MAX_METRICS_READ_TIMEOUT_SECONDS = 5;

  /** Default of {@code database.listenReconnectBackoffCap}. */
  public static final Duration DEFAULT_LISTEN_RECONNECT_BACKOFF_CAP = Duration.seconds(30);

  @Doc(
      "JDBC URL of the database (`jdbc:postgresql://host:port/name`). Absent: an embedded"
          + " PostgreSQL 18 starts (see `database.embedded`), for development only.")
  @Pattern(regexp = "jdbc:postgresql:.*", message = "must start with jdbc:postgresql:")
  @JsonProperty
  private String url;

  @Doc("Runtime role of `api`, `worker` and `all`.")
  @NotBlank
  @JsonProperty
  private String user = DEFAULT_USER;

  @Doc(
      "Password of `database.user`. Required when `database.url` names a host other than"
          + " the loopback. Use `${ENV_VAR}` substitution instead of writing it in the file.")
  @JsonProperty
  private String password;

  @Doc("Owner role that runs `db migrate` and the other `db` commands.")
  @NotBlank
  @JsonProperty
  private String migrationUser = DEFAULT_MIGRATION_USER;

  @Doc("Password of `database.migrationUser`.")
  @JsonProperty
  private String migrationPassword;

  @Doc(
      "Largest number of connections of the runtime pool, and so the most units of work a"
          + " process runs at once: a thread beyond it waits for a connection before its"
          + " transaction begins (see the sync README, \"The pool is the bound\").")
  @Min(1)
  @Max(MAX_POOL_SIZE_LIMIT)
  @JsonProperty
  private int maxPoolSize = DEFAULT_MAX_POOL_SIZE;

  @Doc("How long a caller waits for a connection from the pool before the call fails.")
  @NotNull
  @MinDuration(value = MIN_CONNECTION_TIMEOUT_MILLIS, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;

  @Doc("`statement_timeout` of every unit of work (set on each pooled connection's session).")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = MAX_SESSION_TIMEOUT_DAYS, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

  @Doc(
      "`lock_timeout` of every unit of work (set on each pooled connection's session); a unit"
          + " that hits it is retried."
          + " Must be shorter than `database.statementTimeout`.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = MAX_SESSION_TIMEOUT_DAYS, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;

  @Doc(
      "`idle_in_transaction_session_timeout` of every unit of work (set on each pooled"
          + " connection's session).")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = MAX_SESSION_TIMEOUT_DAYS, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration idleInTransactionTimeout = DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT;

  @Doc(
      "Attempts of a unit of work that keeps failing with a deadlock (40P01), a lock timeout"
          + " (55P03) or a serialization failure (40001), the first one included.")
  @Min(1)
  @Max(MAX_TX_ATTEMPTS_LIMIT)
  @JsonProperty
  private int txMaxAttempts = DEFAULT_TX_MAX_ATTEMPTS;

  @Doc(
      "Backoff before the second attempt of a unit of work; it doubles per attempt, with"
          + " jitter, up to `database.txRetryMaxDelay`.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration txRetryBaseDelay = DEFAULT_TX_RETRY_BASE_DELAY;

  @Doc("Longest backoff between two attempts of a unit of work.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration txRetryMaxDelay = DEFAULT_TX_RETRY_MAX_DELAY;

  @Doc("Longest wait between two reconnection attempts of a dedicated LISTEN connection.")
  @NotNull
  @MinDuration(value = MIN_LISTEN_BACKOFF_CAP_MILLIS, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration listenReconnectBackoffCap = DEFAULT_LISTEN_RECONNECT_BACKOFF_CAP;

  @Doc(
      "Longest time a metrics scrape waits for the database reads of its gauges (consumer lag,"
          + " event log head, job counts), all together; a read that takes longer leaves its"
          + " series out of that scrape. Keep it well below the scrape_timeout of Prometheus.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = MAX_METRICS_READ_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration metricsReadTimeout = DEFAULT_METRICS_READ_TIMEOUT;

  @Valid @NotNull @JsonProperty private EmbeddedConfig embedded = new EmbeddedConfig();

  /**
   * Returns {@code database.url}.
   *
   * @return the URL, or empty for the embedded default
   */
  public Optional<String> url() {
    return Optional.ofNullable(url).filter(u -> !u.isBlank());
  }

  /**
   * Returns {@code database.user}.
   *
   * @return the runtime role
   */
  public String user() {
    return user;
  }

  /**
   * Returns {@code database.password}.
   *
   * @return the password, or empty
   */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /**
   * Returns {@code database.migrationUser}.
   *
   * @return the owner role
   */
  public String migrationUser() {
    return migrationUser;
  }

  /**
   * Returns {@code database.migrationPassword}.
   *
   * @return the password, or empty
   */
  public Optional<String> migrationPassword() {
    return Optional.ofNullable(migrationPassword);
  }

  /**
   * Returns {@code database.maxPoolSize}.
   *
   * @return the pool size
   */
  public int maxPoolSize() {
    return maxPoolSize;
  }

  /**
   * Returns {@code database.connectionTimeout}.
   *
   * @return the timeout
   */
  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /**
   * Returns {@code database.statementTimeout}.
   *
   * @return the timeout
   */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  /**
   * Returns {@code database.lockTimeout}.
   *
   * @return the timeout
   */
  public Duration lockTimeout() {
    return lockTimeout;
  }

  /**
   * Returns {@code database.idleInTransactionTimeout}.
   *
   * @return the timeout
   */
  public Duration idleInTransactionTimeout() {
    return idleInTransactionTimeout;
  }

  /**
   * Returns {@code database.txMaxAttempts}.
   *
   * @return the attempts
   */
  public int txMaxAttempts() {
    return txMaxAttempts;
  }

  /**
   * Returns {@code database.txRetryBaseDelay}.
   *
   * @return the delay
   */
  public Duration txRetryBaseDelay() {
    return txRetryBaseDelay;
  }

  /**
   * Returns {@code database.txRetryMaxDelay}.
   *
   * @return the delay
   */
  public Duration txRetryMaxDelay() {
    return txRetryMaxDelay;
  }

  /**
   * Returns {@code database.listenReconnectBackoffCap}.
   *
   * @return the cap
   */
  public Duration listenReconnectBackoffCap() {
    return listenReconnectBackoffCap;
  }

  /**
   * Returns {@code database.metricsReadTimeout}.
   *
   * @return the longest wait of a scrape for the database
   */
  public Duration metricsReadTimeout() {
    return metricsReadTimeout;
  }

  /**
   * Returns the settings of every unit of work, taken from this section.
   *
   * @return the timeouts, attempts and backoff
   */
  public dev.bothy.platform.pg.TxSettings txSettings() {
    return new dev.bothy.platform.pg.TxSettings(
        statementTimeout.toJavaDuration(),
        lockTimeout.toJavaDuration(),
        idleInTransactionTimeout.toJavaDuration(),
        txMaxAttempts,
        txRetryBaseDelay.toJavaDuration(),
        txRetryMaxDelay.toJavaDuration());
  }

  /**
   * Returns the {@code database.embedded} section.
   *
   * @return the section
   */
  public EmbeddedConfig embedded() {
    return embedded;
  }
}
