package dev.bothy.system;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.bus.Projection;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.SyncModule;
import dev.bothy.system.adapters.postgres.JooqEchoRepository;
import dev.bothy.system.adapters.postgres.JooqPingRepository;
import dev.bothy.system.app.Echo;
import dev.bothy.system.app.Echoes;
import dev.bothy.system.app.PingService;
import java.util.List;

/**
 * The wiring entry of the {@code system} module, flow 00, built in every role: the pings behind
 * {@code /v1/system/pings}, the bus consumer {@code system_echo} and the projection {@code
 * system_echoes}.
 *
 * <pre>{@code
 * SystemModule system = new SystemModule(unitOfWork, sync, clock);
 * busDispatch.register("system", SystemModule.busConsumers()); // wire.BusConsumerDeclarations
 * api.serve(..., system.pings(), ...);                    // api and all
 * }</pre>
 */
public final class SystemModule {
  /** The module's bus consumer's durable name. */
  public static final String ECHO_DURABLE = "system_echo";

  /** The durable of the module's projection, the table {@code system_echoes}. */
  public static final String ECHOES_DURABLE = "system_echoes";

  /** The projection's table, emptied by {@code bus replay system_echoes}. */
  public static final String ECHOES_TABLE = "system_echoes";

  private final PingService pings;

  /**
   * Builds the module.
   *
   * @param unitOfWork the unit of work
   * @param sync the event log module, for its appender
   * @param clock the process's clock
   */
  public SystemModule(UnitOfWork unitOfWork, SyncModule sync, Clock clock) {
    JooqPingRepository repository = new JooqPingRepository();
    this.pings = new PingService(unitOfWork, sync.appender(), repository, clock);
  }

  /**
   * Returns the pings' verbs.
   *
   * @return the port behind {@code /v1/system/pings}
   */
  public Pings pings() {
    return pings;
  }

  /**
   * Declares the module's bus consumers: {@code system_echo} with the handler {@code system.echo}
   * on {@code system.pinged} (not a projection: it changes pings and appends {@code
   * system.echoed}), and the projection {@code system_echoes} with the handler {@code
   * system.echoes} on {@code system.echoed}. Every role, and the {@code bus replay} command, which
   * needs no process of the module: the handlers hold only stores.
   *
   * @return the consumers, for {@code BusDispatchModule.register("system", ...)}
   */
  public static List<BusConsumer> busConsumers() {
    JooqEchoRepository echoes = new JooqEchoRepository();
    return List.of(
        new BusConsumer(
            ECHO_DURABLE,
            List.of(
                BusHandler.of(Echo.NAME, SystemEvents.PINGED, new Echo(new JooqPingRepository())))),
        BusConsumer.projection(
            ECHOES_DURABLE,
            List.of(BusHandler.of(Echoes.NAME, SystemEvents.ECHOED, new Echoes(echoes))),
            new Projection(List.of(ECHOES_TABLE), echoes::deleteAll)));
  }
}
