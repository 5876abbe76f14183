package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bothy.bus.BusModule;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.Optional;

/** The {@code bus} section: the event log carried to NATS JetStream. */
@Doc(
    "The event log carried to NATS JetStream. Without `bus.nats.url` (the default) nothing of"
        + " it starts and Bothy needs no NATS.")
public class BusConfig {
  /** The {@code bus.nats} subsection. */
  @Valid @NotNull @JsonProperty private BusNatsConfig nats = new BusNatsConfig();

  /** The {@code bus.relay} subsection. */
  @Valid @NotNull @JsonProperty private BusRelayConfig relay = new BusRelayConfig();

  /** The {@code bus.dispatch} subsection. */
  @Valid @NotNull @JsonProperty private BusDispatchConfig dispatch = new BusDispatchConfig();

  /** The {@code bus.consumers} subsection. */
  @Valid @NotNull @JsonProperty private BusConsumersConfig consumers = new BusConsumersConfig();

  /**
   * Returns {@code bus.nats}.
   *
   * @return the subsection
   */
  public BusNatsConfig nats() {
    return nats;
  }

  /**
   * Returns {@code bus.relay}.
   *
   * @return the subsection
   */
  public BusRelayConfig relay() {
    return relay;
  }

  /**
   * Returns {@code bus.dispatch}.
   *
   * @return the subsection
   */
  public BusDispatchConfig dispatch() {
    return dispatch;
  }

  /**
   * Returns {@code bus.consumers}.
   *
   * @return the subsection
   */
  public BusConsumersConfig consumers() {
    return consumers;
  }

  /**
   * Maps this section, with the append limit of {@code sync}, to the bus module's settings.
   *
   * @param sync the {@code sync} section, for {@code sync.maxPayloadBytes}
   * @param connectionName the connection's name on the NATS server, such as {@code bothy-worker}
   * @return the settings, or empty when {@code bus.nats.url} is not set
   */
  public Optional<BusModule.Settings> settings(SyncConfig sync, String connectionName) {
    return nats.url()
        .map(
            url ->
                new BusModule.Settings(
                    nats.settings(url, connectionName),
                    nats.stream().settings(nats.manageStreams(), sync.maxPayloadBytes()),
                    relay.settings()));
  }
}
