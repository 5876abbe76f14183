package dev.bothy.system.app;

import dev.bothy.bus.BusEvent;
import dev.bothy.bus.BusHandler;
import dev.bothy.bus.Tx;
import dev.bothy.system.Echoed;
import java.time.Instant;
import java.util.Objects;

/**
 * The bus handler {@code system.echoes} of flow 00, the module's projection (ADR 0027): one row of
 * {@code system_echoes} per {@code system.echoed} event, holding only what the event says (its id,
 * number and time, the ping and the {@code system.pinged} it answers), never the delivery time, so
 * {@code bus replay system_echoes} builds the same rows again. It appends no event and calls
 * nothing outside. A second run for one event inserts nothing ({@code ON CONFLICT DO NOTHING}).
 */
public final class Echoes implements BusHandler.Function<Echoed> {
  /** The handler's name, the key of its rows in {@code event_deliveries}. */
  public static final String NAME = "system.echoes";

  private final EchoRepository repository;

  /**
   * Creates the handler.
   *
   * @param repository the projection's store, joining the dispatch's transaction
   */
  public Echoes(EchoRepository repository) {
    this.repository = Objects.requireNonNull(repository, "repository");
  }

  @Override
  public void handle(Tx tx, BusEvent<Echoed> event, Instant at) {
    repository.insert(
        event.payload().pingId(),
        event.payload().pingedEventId(),
        event.id(),
        event.seq(),
        event.occurredAt());
  }
}
