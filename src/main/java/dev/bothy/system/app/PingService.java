package dev.bothy.system.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.ResourceRef;
import dev.bothy.system.Ping;
import dev.bothy.system.Pinged;
import dev.bothy.system.Pings;
import dev.bothy.system.SystemEvents;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/** Records and reads pings: the ping's row and {@code system.pinged} in one unit. */
public final class PingService implements Pings {
  private final UnitOfWork unitOfWork;
  private final Appender appender;
  private final PingRepository repository;
  private final Clock clock;

  /**
   * Creates the service.
   *
   * @param unitOfWork the unit of work
   * @param appender the event log's appender
   * @param repository the ping store
   * @param clock the process's clock
   */
  public PingService(
      UnitOfWork unitOfWork, Appender appender, PingRepository repository, Clock clock) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.appender = Objects.requireNonNull(appender, "appender");
    this.repository = Objects.requireNonNull(repository, "repository");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public UUID record() {
    return unitOfWork.join(
        () -> {
          UUID id = Ids.newId();
          repository.insert(id, clock.now());
          appender.append(
              new EventDraft(
                  SystemEvents.PINGED.name(),
                  new ResourceRef(SystemEvents.PING, id),
                  Optional.empty(),
                  new Pinged(id)));
          return id;
        });
  }

  @Override
  public Optional<Ping> find(UUID id) {
    return unitOfWork.run(() -> repository.find(id));
  }
}
