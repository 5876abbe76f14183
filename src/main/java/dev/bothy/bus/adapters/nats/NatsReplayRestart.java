package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusConsumerSettings;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.Streams;
import dev.bothy.bus.app.ProjectionReplay;
import dev.bothy.bus.domain.ConsumerFilters;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamState;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The restart of a projection consumer on NATS (ADR 0027, D-RP-3): its durable is deleted and
 * created again as declared ({@link NatsConsumerRunner#configuration}, deliver policy all), so it
 * delivers every message of {@code EVENTS} again from the stream's first. The pull loops of running
 * workers fail once on the deleted durable (one warning each), ask for a fresh context and pull
 * from the new one after {@code bus.consumers.fetchWait}.
 */
public final class NatsReplayRestart implements ProjectionReplay.Restart {
  /** The JetStream error code of a consumer that does not exist. */
  static final int CONSUMER_NOT_FOUND = 10014;

  private final JetStreamManagement jsm;
  private final String serverVersion;
  private final BusConsumerSettings settings;

  /**
   * Creates the restart.
   *
   * @param jsm the management context of the command's connection
   * @param serverVersion the connected server's version, for the durable's filter
   * @param settings {@code bus.consumers.*}, as the workers declare the durable
   */
  public NatsReplayRestart(
      JetStreamManagement jsm, String serverVersion, BusConsumerSettings settings) {
    this.jsm = Objects.requireNonNull(jsm, "jsm");
    this.serverVersion = Objects.requireNonNull(serverVersion, "serverVersion");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Creates the restart on a connected bus.
   *
   * @param bus the command's bus, connected
   * @param settings {@code bus.consumers.*}, as the workers declare the durable
   * @return the restart
   */
  public static NatsReplayRestart of(BusModule bus, BusConsumerSettings settings) {
    return new NatsReplayRestart(
        bus.management(), bus.connection().getServerInfo().getVersion(), settings);
  }

  @Override
  public String restart(BusConsumer consumer, Consumer<String> progress) throws Exception {
    progress.accept("deleting the NATS durable " + consumer.durable() + " of " + Streams.EVENTS);
    try {
      jsm.deleteConsumer(Streams.EVENTS, consumer.durable());
    } catch (JetStreamApiException e) {
      // Gone already (a replay that failed after this step): create it below all the same.
      if (e.getApiErrorCode() != CONSUMER_NOT_FOUND) {
        throw e;
      }
    }
    ConsumerFilters filters = NatsConsumerRunner.ensure(jsm, consumer, serverVersion, settings);
    StreamState state = jsm.getStreamInfo(Streams.EVENTS).getStreamState();
    return "the NATS durable "
        + consumer.durable()
        + " created again with deliver policy all (filter "
        + filters.subjects()
        + "): it delivers "
        + Streams.EVENTS
        + " again from stream sequence "
        + state.getFirstSequence()
        + " to "
        + state.getLastSequence()
        + " ("
        + state.getMsgCount()
        + " messages)";
  }
}
