package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.Credential;
import dev.bothy.bus.NatsSettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The {@code bus.nats} subsection: the connection to NATS and the streams. */
@Doc("The connection to NATS and the streams Bothy declares.")
public class BusNatsConfig {
  /** Default of {@code bus.nats.connectionTimeout}. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.seconds(5);

  /** Default of {@code bus.nats.reconnectWait}. */
  public static final Duration DEFAULT_RECONNECT_WAIT = Duration.seconds(1);

  /** Default of {@code bus.nats.reconnectBackoffCap}. */
  public static final Duration DEFAULT_RECONNECT_BACKOFF_CAP = Duration.seconds(30);

  @Doc(
      "URL of the NATS server with JetStream (`nats://host:4222`; several, for a cluster,"
          + " separated by commas; `tls://` for TLS). Absent: no NATS and no relay. It must not"
          + " hold credentials: use `bus.nats.token` or `bus.nats.credsFile`. Present but blank is"
          + " refused, so an empty `${VAR}` does not turn NATS off.")
  // Null passes: absent is the log transport. Blank is refused (an empty ${VAR} would otherwise
  // move an installation to the log transport without a word).
  @Pattern(
      regexp = "(?s).*\\S.*",
      message = "must not be blank: remove the key to run without NATS, or give a NATS URL")
  @JsonProperty
  private String url;

  @Doc(
      "NATS credentials file (a user JWT and its NKey seed) Bothy connects with. At most one of"
          + " `bus.nats.credsFile` and `bus.nats.token`.")
  @JsonProperty
  private String credsFile;

  @Doc(
      "Token Bothy connects with; a secret, never logged or shown in an error. Use"
          + " `${ENV_VAR}` substitution instead of writing it in the file.")
  @JsonProperty
  private String token;

  @Doc(
      "Longest wait for one connection attempt: an unreachable server fails the start after"
          + " it.")
  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;

  @Doc(
      "First wait before reconnecting to a lost server; it doubles after each failed attempt"
          + " up to `bus.nats.reconnectBackoffCap`. Bothy reconnects forever.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;

  @Doc("Longest wait between two reconnection attempts.")
  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration reconnectBackoffCap = DEFAULT_RECONNECT_BACKOFF_CAP;

  @Doc(
      "Create or update the streams at start. False: only verify them, and fail the start"
          + " naming every field that differs from the declaration (for a NATS account whose"
          + " streams an operator manages).")
  @JsonProperty
  private boolean manageStreams = true;

  /** The {@code bus.nats.stream} subsection. */
  @Valid @NotNull @JsonProperty private BusStreamConfig stream = new BusStreamConfig();

  /**
   * Returns {@code bus.nats.url}.
   *
   * @return the URL, or empty when Bothy runs without NATS
   */
  public Optional<String> url() {
    return Optional.ofNullable(url).filter(u -> !u.isBlank());
  }

  /**
   * Returns {@code bus.nats.credsFile}.
   *
   * @return the path, or empty
   */
  public Optional<String> credsFile() {
    return Optional.ofNullable(credsFile).filter(f -> !f.isBlank());
  }

  /**
   * Returns {@code bus.nats.token}.
   *
   * @return the token, or empty
   */
  public Optional<String> token() {
    return Optional.ofNullable(token).filter(t -> !t.isBlank());
  }

  /**
   * Returns {@code bus.nats.connectionTimeout}.
   *
   * @return the timeout
   */
  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /**
   * Returns {@code bus.nats.reconnectWait}.
   *
   * @return the first wait
   */
  public Duration reconnectWait() {
    return reconnectWait;
  }

  /**
   * Returns {@code bus.nats.reconnectBackoffCap}.
   *
   * @return the cap
   */
  public Duration reconnectBackoffCap() {
    return reconnectBackoffCap;
  }

  /**
   * Returns {@code bus.nats.manageStreams}.
   *
   * @return true when Bothy creates and updates the streams
   */
  public boolean manageStreams() {
    return manageStreams;
  }

  /**
   * Returns {@code bus.nats.stream}.
   *
   * @return the subsection
   */
  public BusStreamConfig stream() {
    return stream;
  }

  /**
   * Maps the connection keys to the module's connection settings.
   *
   * @param url the set {@code bus.nats.url}
   * @param connectionName the connection's name on the server
   * @return the settings
   */
  NatsSettings settings(String url, String connectionName) {
    Credential credential =
        token()
            .<Credential>map(Credential.Token::new)
            .or(() -> credsFile().map(f -> new Credential.CredsFile(Path.of(f))))
            .orElseGet(Credential.None::new);
    return new NatsSettings(
        url.trim(),
        credential,
        connectionTimeout.toJavaDuration(),
        reconnectWait.toJavaDuration(),
        reconnectBackoffCap.toJavaDuration(),
        connectionName);
  }
}
