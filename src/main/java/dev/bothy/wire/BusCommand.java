package dev.bothy.wire;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayRepublish;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * The operator commands of the bus: {@code bus republish --from SEQ [config.yml]} republishes the
 * events from {@code SEQ} up to the relay's cursor to the {@code EVENTS} stream, under the relay's
 * lease, after a purge or a re-creation of the stream halted the relay ({@code
 * bus_stream_behind_log}), and moves the cursor past events retention removed. It prints what it
 * republished and every range it could not (removed by retention, or left out by the choice of
 * {@code SEQ}); it exits 1 with one line on standard error when the relay runs (not halted), when
 * {@code SEQ} is already in the stream or past the cursor, or when the stream does not acknowledge.
 * {@code bus dead list|show|replay} works the dead letters of bus consumers ({@link
 * BusDeadCommand}) and needs no NATS. {@code bus replay <durable>} rebuilds a projection consumer
 * ({@link BusReplayCommand}).
 */
final class BusCommand extends ConfiguredCommand<BothyConfiguration> {
  static final String ACTION = "action";

  /** How often the command tries for the lease while halted relays look at the stream. */
  static final int LEASE_TRIES = 50;

  BusCommand() {
    super(
        "bus",
        "Operator commands of the bus: republish after a halted relay, the dead letters of bus"
            + " consumers, the replay of a projection");
  }

  @Override
  public void configure(Subparser subparser) {
    // Dropwizard shows a command's description on its own help only; this lists it on -h too.
    subparser.help(getDescription());
    Subparsers actions = subparser.addSubparsers().dest(ACTION);
    Subparser republish =
        actions
            .addParser("republish")
            .help("republishes the events from --from up to the relay's cursor")
            .setDefault(ACTION, "republish");
    addFileArgument(republish);
    republish
        .addArgument("--from")
        .type(Long.class)
        .required(true)
        .help("the first event number to publish again (the stream's last Bothy-Seq plus one)");
    BusDeadCommand.configure(actions, this::addFileArgument);
    BusReplayCommand.configure(actions, this::addFileArgument);
  }

  @Override
  protected void run(
      Bootstrap<BothyConfiguration> bootstrap, Namespace namespace, BothyConfiguration config)
      throws Exception {
    JobsCommand.quietLogging(bootstrap, config);
    if ("dead".equals(namespace.getString(ACTION))) {
      BusDeadCommand.run(namespace, config, System.out);
      return;
    }
    if ("replay".equals(namespace.getString(ACTION))) {
      BusReplayCommand.run(namespace, config, System.out);
      return;
    }
    long from = namespace.getLong("from");
    Optional<BusModule.Settings> settings =
        config.bus().settings(config.sync(), "bothy-bus-command");
    if (settings.isEmpty()) {
      throw new IllegalArgumentException("bus.nats.url is not set: there is no relay");
    }
    BusModule bus = new BusModule(settings.get());
    bus.connect();
    HikariDataSource pool = JobsCommand.open(config);
    try {
      PgUnitOfWork unitOfWork =
          new PgUnitOfWork(
              pool,
              config.database().txSettings(),
              new dev.bothy.platform.pg.HookRegistry(),
              Sleeper.system(),
              ThreadLocalRandom.current());
      PoolSettings leaseConnection =
          new PoolSettings(
              pool.getJdbcUrl(),
              pool.getUsername(),
              pool.getPassword(),
              1,
              config.database().connectionTimeout().toJavaDuration(),
              PgRelayLease.APPLICATION_NAME);
      RelayRepublish republish =
          new RelayRepublish(
              Streams.EVENTS,
              settings.get().relay().window(),
              unitOfWork,
              new JooqRelayCursorRepository(),
              new EventLogService(unitOfWork, new JooqEventRepository()),
              new JetStreamClient(
                  bus.connection(),
                  Streams.EVENTS,
                  Streams::subjectOf,
                  settings.get().relay().publishAckTimeout()),
              new PgRelayLease(leaseConnection, settings.get().relay().leaseTimeout()),
              dev.bothy.kernel.Clock.system());
      RelayRepublish.Report report = republishWithRetries(republish, from);
      print(System.out, report);
    } finally {
      JobsCommand.close(pool);
      bus.close();
    }
  }

  /**
   * Halted relays take the lease for a moment at every poll to look at the stream; the command
   * tries again while a conflict says so, for about {@link #LEASE_TRIES} poll intervals.
   */
  private static RelayRepublish.Report republishWithRetries(RelayRepublish republish, long from)
      throws InterruptedException {
    BothyException last = null;
    for (int i = 0; i < LEASE_TRIES; i++) {
      try {
        return republish.republish(from);
      } catch (BothyException e) {
        if (e.kind() != ErrorKind.CONFLICT) {
          throw e;
        }
        last = e;
        Sleeper.system().sleep(Duration.ofMillis(100));
      }
    }
    throw last;
  }

  static void print(PrintStream out, RelayRepublish.Report report) {
    out.println("stream last Bothy-Seq before: " + report.streamLastBefore());
    report
        .lostToRetention()
        .ifPresent(
            r ->
                out.println(
                    "NOT republished, removed from the log by retention: "
                        + r.from()
                        + " to "
                        + r.to()));
    report
        .leftOut()
        .ifPresent(
            r ->
                out.println(
                    "NOT republished, before --from and not in the stream: "
                        + r.from()
                        + " to "
                        + r.to()));
    out.println(
        report
            .republished()
            .map(r -> "republished: " + r.from() + " to " + r.to())
            .orElse("republished: none"));
    out.println("relay cursor: " + report.cursor());
  }

  @Override
  public void onError(io.dropwizard.core.cli.Cli cli, Namespace namespace, Throwable e) {
    cli.getStdErr()
        .println(
            "bus "
                + namespace.getString(ACTION)
                + ": "
                + CommandErrors.unsetVariable(e).orElse(e.getMessage()));
  }
}
