package dev.bothy.system;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusHandler;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.SyncModule;
import dev.bothy.system.adapters.postgres.JooqPingRepository;
import dev.bothy.system.app.Echo;
import dev.bothy.system.app.PingService;
import java.util.List;

/**
 * The wiring entry of the {@code system} module, flow 00, built in every role: the pings behind
 * {@code /v1/system/pings} and the bus consumer {@code system_echo}.
 *
 * <pre>{@code
 * SystemModule system = new SystemModule(unitOfWork, sync, clock);
 * busDispatch.register("system", system.busConsumers()); // every role, before the start
 * api.serve(..., system.pings(), ...);                    // api and all
 * }</pre>
 */
public final class SystemModule {
  /** The module's bus consumer's durable name. */
  public static final String ECHO_DURABLE = "system_echo";

  private final PingService pings;
  private final Echo echo;

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
    this.echo = new Echo(repository);
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
   * on {@code system.pinged}.
   *
   * @return the consumers, for {@code BusDispatchModule.register("system", ...)}
   */
  public List<BusConsumer> busConsumers() {
    return List.of(
        new BusConsumer(
            ECHO_DURABLE, List.of(BusHandler.of(Echo.NAME, SystemEvents.PINGED, echo))));
  }
}
