package dev.bothy.wire;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.adapters.nats.NatsReplayRestart;
import dev.bothy.bus.adapters.postgres.JooqDeliveryRepository;
import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.LogReplayRestart;
import dev.bothy.bus.app.ProjectionReplay;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.jackson.Jackson;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * The verb {@code bus replay <durable> [config.yml]} of the {@code bus} command (ADR 0027):
 * rebuilds a projection consumer through {@link ProjectionReplay} on the transport the workers use,
 * NATS with {@code bus.nats.url}, else the log. It prints each step (what it paused, the rows
 * reset, where the consumer restarts). An unknown durable or a consumer that is not a projection is
 * refused before any connection, with one line on standard error and exit status 1; so is a failed
 * reset, which leaves nothing reset.
 */
final class BusReplayCommand {
  private BusReplayCommand() {}

  /**
   * Adds {@code replay} to the {@code bus} command's actions.
   *
   * @param actions the {@code bus} command's subparsers
   * @param addFileArgument adds the optional configuration file argument to a parser
   */
  static void configure(Subparsers actions, Consumer<Subparser> addFileArgument) {
    Subparser replay =
        actions
            .addParser("replay")
            .help(
                "rebuilds a projection consumer: pauses it, empties its tables and delivery rows in"
                    + " one transaction, restarts it from the start of the stream or the log")
            .setDefault(BusCommand.ACTION, "replay");
    replay.addArgument("durable").help("the projection consumer's durable, such as system_echoes");
    addFileArgument.accept(replay);
  }

  /**
   * Runs the replay.
   *
   * @param namespace the parsed arguments
   * @param config the configuration
   * @param out where the steps are printed
   * @throws Exception any failure; the command prints its message and exits 1
   */
  static void run(Namespace namespace, BothyConfiguration config, PrintStream out)
      throws Exception {
    String durable = namespace.getString("durable");
    List<BusConsumer> consumers = BusConsumerDeclarations.consumers();
    // Refuse bad input before touching the database or NATS.
    ProjectionReplay.projection(consumers, durable);
    Consumer<String> progress =
        line -> {
          out.println(line);
          out.flush();
        };
    Optional<BusModule.Settings> nats = config.bus().settings(config.sync(), "bothy-bus-replay");
    BusModule bus = nats.map(BusModule::new).orElse(null);
    HikariDataSource pool = null;
    try {
      if (bus != null) {
        bus.connect();
      }
      pool = JobsCommand.open(config);
      HookRegistry hooks = new HookRegistry();
      PgUnitOfWork unitOfWork =
          new PgUnitOfWork(
              pool,
              config.database().txSettings(),
              hooks,
              Sleeper.system(),
              ThreadLocalRandom.current());
      ProjectionReplay.Restart restart;
      if (bus != null) {
        restart = NatsReplayRestart.of(bus, config.bus().consumers().settings());
        progress.accept("transport: NATS (bus.nats.url is set)");
      } else {
        JobRegistry registry =
            new JobRegistry(
                config.jobs().defaultMaxAttempts(),
                config.jobs().defaultTimeout().toJavaDuration(),
                config.jobs().rescueAfter().toJavaDuration());
        registry.register(
            DispatchJob.insertOnlyKind(config.bus().dispatch().jobTimeout().toJavaDuration()));
        registry.freeze();
        JooqEventRepository events = new JooqEventRepository();
        restart =
            new LogReplayRestart(
                unitOfWork,
                new EventLogService(unitOfWork, events),
                new ConsumerService(
                    unitOfWork,
                    new JooqConsumerCursorRepository(),
                    events,
                    config.consumer().batchSize()),
                new JobInserterService(
                    unitOfWork,
                    hooks,
                    registry,
                    new JacksonPayloadCodec(Jackson.newObjectMapper()),
                    Clock.system()),
                config.consumer().batchSize());
        progress.accept("transport: the log (bus.nats.url is not set)");
      }
      ProjectionReplay.Report report =
          new ProjectionReplay(
                  consumers,
                  unitOfWork,
                  new PgProjectionLock(),
                  new JooqDeliveryRepository(),
                  restart)
              .replay(durable, progress);
      out.println(
          "replayed "
              + report.durable()
              + ": "
              + report.projectionRows()
              + " projection rows and "
              + report.deliveryRows()
              + " delivery rows reset; its handlers build "
              + report.tables()
              + " again as the workers run");
      out.flush();
    } finally {
      if (pool != null) {
        JobsCommand.close(pool);
      }
      if (bus != null) {
        bus.close();
      }
    }
  }
}
