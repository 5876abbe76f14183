package dev.bothy.system.app;

import dev.bothy.bus.BusEvent;
import dev.bothy.bus.BusHandler;
import dev.bothy.bus.Tx;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import dev.bothy.system.Echoed;
import dev.bothy.system.Pinged;
import dev.bothy.system.SystemEvents;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The bus handler {@code system.echo} of flow 00: marks the ping echoed with a guarded update and
 * appends {@code system.echoed} in the same transaction, then asks for a live hint after the commit
 * ({@code Tx.liveHint}: a core NATS message on {@code bothy.live.system.echo} with {@code
 * bus.nats.url}; without NATS the hint is {@code system.echoed} itself, which the event stream
 * hands its readers right after this commit, D-F0-5, D-NT-6). A redelivery after the commit never
 * runs it (the delivery row), and a run whose ping is already echoed changes, appends and hints
 * nothing.
 */
public final class Echo implements BusHandler.Function<Pinged> {
  /** The handler's name, the key of its rows in {@code event_deliveries}. */
  public static final String NAME = "system.echo";

  private final PingRepository repository;

  /**
   * Creates the handler.
   *
   * @param repository the ping store, joining the dispatch's transaction
   */
  public Echo(PingRepository repository) {
    this.repository = Objects.requireNonNull(repository, "repository");
  }

  @Override
  public void handle(Tx tx, BusEvent<Pinged> event, Instant at) {
    if (!repository.markEchoed(event.payload().pingId(), at)) {
      return;
    }
    ResourceRef ping = new ResourceRef(SystemEvents.PING, event.payload().pingId());
    tx.append(
        new EventDraft(
            SystemEvents.ECHOED.name(),
            ping,
            Optional.empty(),
            new Echoed(event.payload().pingId(), event.id())));
    tx.liveHint(ping);
  }
}
