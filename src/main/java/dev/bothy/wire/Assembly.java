package dev.bothy.wire;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.ApiModule;
import dev.bothy.api.http.ProblemMapper;
import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusConsumerState;
import dev.bothy.bus.BusDispatchModule;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.Relay;
import dev.bothy.bus.RelayView;
import dev.bothy.console.ConsoleModule;
import dev.bothy.console.ProcessReadings;
import dev.bothy.instance.InstanceModule;
import dev.bothy.instance.InstanceRecord;
import dev.bothy.kernel.BuildInfo;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobsModule;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.ProcessExit;
import dev.bothy.platform.lifecycle.Readiness;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgProbe;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.SyncModule;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.system.SystemModule;
import dev.bothy.webhooks.WebhooksModule;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object graph of one Bothy process: it composes the modules' wiring entries per role, in the
 * order of DESIGN.md section 5 (pool, modules, start checks, the bus when {@code bus.nats.url} is
 * set, tail and HTTP API in {@code api} and {@code all}, job workers and worker consumers in {@code
 * worker} and {@code all}), and hands every module the one {@link Clock} of the process. Each
 * module builds itself from its settings record; nothing else happens here.
 */
final class Assembly {
  private static final Logger LOG = LoggerFactory.getLogger(Assembly.class);

  private final Role role;
  private final ManagedHikariDataSource dataSource;
  private final HookRegistry hooks = new HookRegistry(PhaseHookOrder.ORDER);
  private final Readiness readiness = new Readiness();
  private final UnitOfWork unitOfWork;
  private final Lifecycle lifecycle;
  private final InstanceModule instance;
  private final JobsModule jobs;
  private final SyncModule sync;
  private final ScrapeReads scrapeReads;
  private final Optional<BusModule> bus;
  private final WebhooksModule webhooks;
  private final BusDispatchModule busDispatch;
  private LogTail tail;

  private Assembly(
      BothyConfiguration config, Environment environment, ProcessExit exit, Clock clock) {
    this.role = config.role();
    LOG.info("bothy starting: role={} version={}", role.code(), BuildInfo.version());
    RedactedHealthChecks.install(environment.healthChecks());
    dataSource =
        new HikariDataSourceFactory(
                config.database(),
                HikariDataSourceFactory.Purpose.RUNTIME,
                "bothy-" + role.code(),
                environment.healthChecks(),
                exitGrace(config))
            .buildPool(environment.metrics(), "bothy");
    try {
      unitOfWork =
          new PgUnitOfWork(
              dataSource,
              config.database().txSettings(),
              hooks,
              Sleeper.system(),
              ThreadLocalRandom.current());
      Duration total = config.shutdown().totalTimeout().toJavaDuration();
      lifecycle = new Lifecycle(total, exit, System::nanoTime);
      JacksonPayloadCodec codec = new JacksonPayloadCodec(environment.getObjectMapper());

      // Every role: the modules, their hooks, job kinds and gauges.
      instance = new InstanceModule(unitOfWork);
      jobs =
          new JobsModule(
              config.jobs().settings(config.database(), config.shutdown()),
              unitOfWork,
              hooks,
              codec,
              clock);
      EventLogMetrics logMetrics = new EventLogMetrics(environment.metrics());
      sync =
          new SyncModule(
              config.sync().settings(config.consumer(), config.database(), config.shutdown()),
              unitOfWork,
              hooks,
              instance.counters(),
              jobs,
              codec,
              logMetrics,
              clock);
      // Every module's event types, from each module's registration file, in every role.
      EventRegistrations.registerInto(sync.eventTypes());
      ApiModule api =
          new ApiModule(
              config.api().settings(config.sync(), config.jobs()), unitOfWork, jobs, clock);
      ObjectMapper mapper = environment.getObjectMapper();
      webhooks =
          new WebhooksModule(
              config.webhooks().settings(config.consumer(), config.jobs()),
              unitOfWork,
              jobs,
              sync,
              event -> ApiModule.renderEvent(mapper, event),
              new WebhookMetrics(environment.metrics()),
              clock);
      webhooks.stopWith(lifecycle);
      // Every role: the bus consumers of every module (each declares them in one method of its
      // wiring), the dedupe table, dead letters and the bus.dispatch kind, with or without NATS.
      busDispatch =
          new BusDispatchModule(
              config.bus().dispatch().settings(config.jobs()),
              unitOfWork,
              jobs,
              sync,
              codec,
              new BusDispatchMetrics(environment.metrics()),
              clock);
      // Flow 00: the pings, in every role; every module's bus consumers from their one list.
      SystemModule system = new SystemModule(unitOfWork, sync, clock);
      BusConsumerDeclarations.all().forEach(busDispatch::register);
      // One bounded reader for every gauge that reads the database: a scrape never blocks.
      scrapeReads = new ScrapeReads(config.database().metricsReadTimeout().toJavaDuration());
      logMetrics.registerGauges(sync.eventLog(), scrapeReads);
      WebhookMetrics.registerGauges(environment.metrics(), webhooks::stateCounts, scrapeReads);
      JobRuntimeMetrics.registerGauges(
          environment.metrics(), jobs.admin(), config.jobs().queues().keySet(), scrapeReads);

      Duration connectionTimeout = config.database().connectionTimeout().toJavaDuration();
      readiness.register("database", () -> PgProbe.answers(dataSource, connectionTimeout));
      lifecycle.onStart(
          "database", () -> LOG.info("database connected: {}", PgProbe.describe(dataSource)));
      instance.checkAtStart(lifecycle, readiness);
      busDispatch.checkAtStart(lifecycle, sync);
      // The bus only with bus.nats.url: the embedded default needs no NATS. Its start step
      // connects and ensures the streams before the tail, the workers and the connectors; then
      // the relay, in every role. The relay's health checks are on /healthcheck; readiness never
      // waits for NATS.
      bus = config.bus().settings(config.sync(), "bothy-" + role.code()).map(BusModule::new);
      Optional<RelayView> relay =
          bus.map(
              b -> {
                b.start(lifecycle, () -> instance.record().instanceId());
                RelayView started =
                    b.startRelay(
                        lifecycle,
                        unitOfWork,
                        sync.eventLog(),
                        new Relay.Connections(
                            listenConnection(config, Relay.LEASE_APPLICATION_NAME),
                            listenConnection(config, Relay.LISTEN_APPLICATION_NAME)),
                        config.database().listenReconnectBackoffCap().toJavaDuration(),
                        new BusRelayMetrics(environment.metrics()),
                        new OtelJobTracer(GlobalOpenTelemetry.get()),
                        clock);
                BusRelayMetrics.registerGauges(
                    environment.metrics(), environment.healthChecks(), started, scrapeReads);
                return started;
              });
      if (bus.isEmpty()) {
        LOG.info("bus.nats.url is not set: no NATS connection and no relay");
      }
      // The operator console on the admin port, in every role: it reads and acts through the
      // modules' ports and needs a token of api.tokens with admin:read.
      ConsoleModule console =
          new ConsoleModule(
              config.console().settings(config.api()),
              sync.eventLog(),
              sync.consumers(),
              relay,
              jobs.admin(),
              busDispatch.deadLetters(),
              webhooks.subscriptions(),
              new ProcessReadings() {
                @Override
                public List<BusConsumerState> busConsumers() {
                  return busDispatch.natsConsumerStates();
                }

                @Override
                public Optional<SeqLockHeld> seqLockHeld() {
                  return logMetrics.seqLockHeld();
                }
              },
              clock);
      ConsoleMount.mount(environment, console);
      console.start(lifecycle, total);
      if (role.servesApi()) {
        tail =
            sync.startTail(lifecycle, listenConnection(config, SyncModule.TAIL_APPLICATION_NAME));
        if (config.api().tokens().isEmpty()) {
          LOG.warn("api.tokens is empty: every API request is refused with 401");
        }
        api.serve(
                sync,
                tail,
                webhooks.subscriptions(),
                system.pings(),
                environment.getObjectMapper(),
                new HttpApiMetrics(environment.metrics()))
            .forEach(environment.jersey()::register);
        environment.jersey().register(new UnreadBodyCloses());
        // Jetty's own error answers (a refused path or header, a URI or headers over the limits)
        // become problem documents on the application connectors, like every other API error.
        ProblemErrorHandler errors =
            new ProblemErrorHandler(new ProblemMapper(environment.getObjectMapper()));
        environment
            .lifecycle()
            .addEventListener(
                LifecycleManaged.onStarting(
                    server -> {
                      if (server instanceof Server jetty) {
                        jetty.setErrorHandler(errors);
                      }
                    }));
        // Streams end as Jetty starts to stop, so they do not hold the connectors open.
        environment.lifecycle().addEventListener(LifecycleManaged.onStopping(api::closeStreams));
      }
      lifecycle.onStart(
          "phase-hooks",
          () -> {
            hooks.freeze();
            jobs.registry().freeze();
            LOG.info("phase hooks frozen: hooks={}", hooks.registrations());
          });
      // Every role knows the worker consumers, so an api process exports their lag gauges while
      // no worker runs; only worker and all start their rounds (below).
      webhooks.registerConsumer(sync);
      if (bus.isEmpty()) {
        busDispatch.registerLogConsumer(sync);
      }
      if (role.runsWorkers()) {
        OtelJobTracer tracer = new OtelJobTracer(GlobalOpenTelemetry.get());
        jobs.startWorkers(
            lifecycle,
            listenConnection(config, "bothy-jobs-listen"),
            new JobRuntimeMetrics(environment.metrics()),
            tracer);
        // Dead letters are written where handlers run, on either transport (replays included).
        BusDispatchMetrics.registerDeadLetterCounters(
            environment.metrics(),
            busDispatch.consumers().stream().flatMap(c -> c.handlerNames().stream()).toList());
        // One transport of bus consumers (ADR 0024): the NATS durables with bus.nats.url, else the
        // log (the worker consumer bus, registered above). Replays of dead letters run as
        // bus.dispatch jobs on both.
        if (bus.isPresent()) {
          if (busDispatch.startNatsConsumers(
              lifecycle, bus.get(), config.bus().consumers().settings())) {
            BusDispatchMetrics.registerConsumerGauges(
                environment.metrics(),
                busDispatch.consumers().stream().map(BusConsumer::durable).toList(),
                busDispatch::natsConsumerStates);
            BusDispatchMetrics.registerPullHealth(
                environment.healthChecks(), busDispatch::natsPullFailures);
          }
        }
        sync.startConsumers(
            lifecycle, listenConnection(config, ListenerWaker.APPLICATION_NAME), tracer);
      }
      lifecycle.onStop(StopPhase.POOL, "pool", total, dataSource::stop);
      LifecycleManaged managed =
          new LifecycleManaged(lifecycle, exitGrace(config), connectorGrace(config));
      environment.lifecycle().manage(managed);
      // The exit hook stops the server, also one still starting; Jetty's own hook is turned off.
      environment
          .lifecycle()
          .addEventListener(LifecycleManaged.onStarting(managed::serverStarting));
      // Jetty binds the connectors before it starts the managed objects, so a taken port fails
      // the start with the lifecycle never started and never stopped: stop it here.
      environment.lifecycle().addEventListener(LifecycleManaged.onFailure(lifecycle::stop));
      AdminEndpoints.register(environment, role, readiness);
      AdminPort.disableTasks(environment);
      environment.lifecycle().addEventListener(PathOnlyRequestLog.install());
    } catch (RuntimeException e) {
      // Nothing else will stop the pool (and an embedded server) of a process that never started.
      dataSource.stop();
      throw e;
    }
  }

  /**
   * Builds the process's object graph.
   *
   * @param config the validated configuration, with its role assigned
   * @param environment Dropwizard's environment
   * @param exit how {@link Lifecycle#fail(Throwable)} ends the process
   * @param clock the one clock of the process
   * @return the assembly
   */
  static Assembly build(
      BothyConfiguration config, Environment environment, ProcessExit exit, Clock clock) {
    return new Assembly(config, environment, exit, clock);
  }

  /** A dedicated LISTEN connection to the pool's database, named by its application name. */
  private PoolSettings listenConnection(BothyConfiguration config, String applicationName) {
    return new PoolSettings(
        dataSource.getJdbcUrl(),
        dataSource.getUsername(),
        dataSource.getPassword(),
        1,
        config.database().connectionTimeout().toJavaDuration(),
        applicationName);
  }

  /**
   * Returns how long the embedded server's exit hook waits for the orderly shutdown: the
   * connectors' grace period ({@code server.shutdownGracePeriod}) plus {@code
   * shutdown.totalTimeout}, the two stages that run before the pool closes.
   */
  private static Duration exitGrace(BothyConfiguration config) {
    return config.shutdown().totalTimeout().toJavaDuration().plus(connectorGrace(config));
  }

  /** Returns {@code server.shutdownGracePeriod}, zero for a server factory without one. */
  private static Duration connectorGrace(BothyConfiguration config) {
    if (config.getServerFactory() instanceof DefaultServerFactory server) {
      return server.getShutdownGracePeriod().toJavaDuration();
    }
    return Duration.ZERO;
  }

  // For the commands and launchers of this package's tests: the modules and what they built.

  /**
   * Returns the process's lifecycle, for tests in this package that add a start step.
   *
   * @return the lifecycle
   */
  Lifecycle lifecycle() {
    return lifecycle;
  }

  Role role() {
    return role;
  }

  HookRegistry hooks() {
    return hooks;
  }

  UnitOfWork unitOfWork() {
    return unitOfWork;
  }

  Readiness readiness() {
    return readiness;
  }

  JobsModule jobs() {
    return jobs;
  }

  /**
   * Returns the bounded reader the gauges that read the database share.
   *
   * @return the reader
   */
  ScrapeReads scrapeReads() {
    return scrapeReads;
  }

  SyncModule sync() {
    return sync;
  }

  /**
   * Returns the bus, built only when {@code bus.nats.url} is set.
   *
   * @return the bus module, or empty
   */
  Optional<BusModule> bus() {
    return bus;
  }

  WebhooksModule webhooks() {
    return webhooks;
  }

  BusDispatchModule busDispatch() {
    return busDispatch;
  }

  Appender appender() {
    return sync.appender();
  }

  EventLog eventLog() {
    return sync.eventLog();
  }

  InstanceRecord instanceRecord() {
    return instance.record();
  }

  LogTail tail() {
    if (tail == null) {
      throw new IllegalStateException("the " + role.code() + " role runs no log tail");
    }
    return tail;
  }
}
