package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.StreamSettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code bus.nats.stream} subsection: the {@code EVENTS} stream. */
@Doc("The `EVENTS` stream, declared in `bus.Streams`.")
public class BusStreamConfig {
  /** Upper bound of {@code bus.nats.stream.replicas}: JetStream's own limit. */
  public static final int MAX_REPLICAS = 5;

  /** Default of {@code bus.nats.stream.maxAge}: the default {@code sync.eventRetention}. */
  public static final Duration DEFAULT_MAX_AGE = SyncConfig.DEFAULT_EVENT_RETENTION;

  /**
   * Default of {@code bus.nats.stream.duplicateWindow}: 5 minutes. The server drops a second
   * publish with the same message id only inside this window, counted from the first store. The
   * relay republishes an event with the same id after {@code bus.relay.publishAckTimeout}, after a
   * reconnection (up to {@code bus.nats.reconnectBackoffCap} apart) or after a relay takeover; 5
   * minutes covers several of those, where the 2 minutes of the seed cover a single reconnection
   * cap. Longer costs the server memory for every id of the window; the relay's check of {@code
   * Bothy-Seq} catches what comes after the window anyway.
   */
  public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.minutes(5);

  /** Lower bound of {@code bus.nats.stream.duplicateWindow}, in minutes: the seed's window. */
  public static final long MIN_DUPLICATE_WINDOW_MINUTES = 2;

  @Doc("Copies of each message in a NATS cluster: 1 on a single server, 3 in a cluster.")
  @Min(1)
  @Max(MAX_REPLICAS)
  @JsonProperty
  private int replicas = 1;

  @Doc(
      "How long the stream keeps an event; at least `sync.eventRetention`, so anything the log"
          + " still holds can be found in the stream too.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.HOURS)
  @JsonProperty
  private Duration maxAge = DEFAULT_MAX_AGE;

  @Doc(
      "How long the server remembers a message id and drops a republished copy; at least 2"
          + " minutes, longer than `bus.relay.publishAckTimeout` and not longer than"
          + " `bus.nats.stream.maxAge`. The default covers a relay's republish after several"
          + " reconnections or a takeover (see the bus README).")
  @NotNull
  @MinDuration(value = MIN_DUPLICATE_WINDOW_MINUTES, unit = TimeUnit.MINUTES)
  @MaxDuration(value = 1, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration duplicateWindow = DEFAULT_DUPLICATE_WINDOW;

  /**
   * Returns {@code bus.nats.stream.replicas}.
   *
   * @return the replicas
   */
  public int replicas() {
    return replicas;
  }

  /**
   * Returns {@code bus.nats.stream.maxAge}.
   *
   * @return the age
   */
  public Duration maxAge() {
    return maxAge;
  }

  /**
   * Returns {@code bus.nats.stream.duplicateWindow}.
   *
   * @return the window
   */
  public Duration duplicateWindow() {
    return duplicateWindow;
  }

  /**
   * Maps the stream keys to the module's stream settings.
   *
   * @param manage {@code bus.nats.manageStreams}
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   * @return the settings
   */
  StreamSettings settings(boolean manage, int maxPayloadBytes) {
    return new StreamSettings(
        manage,
        replicas,
        maxAge.toJavaDuration(),
        duplicateWindow.toJavaDuration(),
        maxPayloadBytes);
  }
}
