package dev.bothy.wire;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.bothy.api.ApiSettings;
import dev.bothy.api.ApiToken;
import dev.bothy.api.HttpApi;
import dev.bothy.api.Scope;
import dev.bothy.instance.Counters;
import dev.bothy.instance.InstanceRecord;
import dev.bothy.instance.InstanceState;
import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.instance.adapters.postgres.JooqInstanceRepository;
import dev.bothy.instance.app.CounterService;
import dev.bothy.instance.app.InstanceService;
import dev.bothy.instance.domain.ServerVersionCheck;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.BuildInfo;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobAdmin;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobRuntime;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.runtime.JobAdminService;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.ProcessExit;
import dev.bothy.platform.lifecycle.Readiness;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.platform.pg.PgProbe;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.sync.Appender;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.adapters.postgres.JooqPartitionRepository;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.sync.app.AppendHook;
import dev.bothy.sync.app.AppendService;
import dev.bothy.sync.app.ConsumerRunner;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.sync.app.PartitionMaintenance;
import dev.bothy.sync.app.PartitionMaintenanceJob;
import dev.bothy.sync.app.TailService;
import dev.bothy.wire.config.ApiConfig;
import dev.bothy.wire.config.BothyConfiguration;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.JobsConfig;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object graph of one Bothy process, built in the order of DESIGN.md section 5: pool, phase
 * hooks, unit of work, readiness, lifecycle, admin endpoints. Later modules hang their components
 * here, on the role.
 */
final class Assembly {
  private static final Logger LOG = LoggerFactory.getLogger(Assembly.class);

  /** The readiness check that fails while the schema requires a newer server. */
  static final String SCHEMA_REQUIRES_NEWER_SERVER = "schema_requires_newer_server";

  /** The metric whose name carries the role; mapped to {@code bothy_process_role{bothy_role}}. */
  static final String ROLE_METRIC = "bothy.process.role";

  private final Role role;
  private final ManagedHikariDataSource dataSource;
  private final HookRegistry hooks = new HookRegistry();
  private final UnitOfWork unitOfWork;
  private final Readiness readiness = new Readiness();
  private final Lifecycle lifecycle;
  private final InstanceState instanceState;
  private final EventTypes eventTypes;
  private final Appender appender;
  private final EventLog eventLog;
  private final JobRegistry jobRegistry;
  private final JobInserter jobInserter;
  private final JobAdmin jobAdmin;
  private TailService tail;
  private HttpApi httpApi;
  private PgJobRuntime jobRuntime;
  private ConsumerService consumers;
  private volatile ConsumerRunner consumerRunner;
  private volatile InstanceRecord instanceRecord;

  private Assembly(BothyConfiguration config, Environment environment, ProcessExit exit) {
    this.role = config.role();
    DatabaseConfig db = config.database();
    LOG.info("bothy starting: role={} version={}", role.code(), BuildInfo.version());
    registerRoleGauge(environment.metrics());

    dataSource =
        new HikariDataSourceFactory(
                db,
                HikariDataSourceFactory.Purpose.RUNTIME,
                "bothy-" + role.code(),
                environment.healthChecks(),
                exitGrace(config))
            .buildPool(environment.metrics(), "bothy");

    try {
      // Modules register their phase hooks here, before the registry freezes at start.

      unitOfWork =
          new PgUnitOfWork(
              dataSource, db.txSettings(), hooks, Sleeper.system(), ThreadLocalRandom.current());

      instanceState = new InstanceService(unitOfWork, new JooqInstanceRepository());
      // The counters go only to the phase hooks that own them (an ArchUnit rule).
      Counters counters = new CounterService(unitOfWork, new JooqCounterRepository());

      eventTypes = EventTypes.withBuiltIns();
      JooqEventRepository events = new JooqEventRepository();
      appender =
          new AppendService(
              unitOfWork,
              eventTypes,
              new JacksonPayloadCodec(environment.getObjectMapper()),
              Clock.system(),
              config.sync().maxPayloadBytes());
      JobsConfig jobs = config.jobs();
      jobRegistry =
          new JobRegistry(
              jobs.defaultMaxAttempts(),
              jobs.defaultTimeout().toJavaDuration(),
              jobs.rescueAfter().toJavaDuration());
      JacksonPayloadCodec argsCodec = new JacksonPayloadCodec(environment.getObjectMapper());
      // Created before the event log's hook: its hook jobs.insert writes deferred jobs before
      // sync.append takes the event_seq lock, so they never lengthen the serialized window.
      jobInserter =
          new JobInserterService(unitOfWork, hooks, jobRegistry, argsCodec, Clock.system());

      EventLogMetrics metrics = new EventLogMetrics(environment.metrics());
      hooks.register(
          Phase.SYNC,
          AppendHook.NAME,
          new AppendHook(
              unitOfWork,
              counters,
              events,
              metrics,
              config.sync().maxConcurrentAppends(),
              db.lockTimeout().toJavaDuration()));
      eventLog = new EventLogService(unitOfWork, events);
      metrics.registerGauges(eventLog);

      jobAdmin = new JobAdminService(unitOfWork, Clock.system());
      JobRuntimeMetrics.registerGauges(environment.metrics(), jobAdmin, jobs.queues().keySet());
      registerPartitionMaintenance(config, events);
      jobRegistry.register(
          HttpApi.idempotencyCleanupKind(
              unitOfWork,
              Clock.system(),
              config.api().idempotencyRetention().toJavaDuration(),
              jobs.cleanerBatchSize()));
      jobRegistry.registerPeriodic(
          HttpApi.idempotencyCleanupPeriodic(
              config.api().idempotencyCleanupInterval().toJavaDuration()));

      // Every role reads the consumers' states for the lag gauges; worker and all run them.
      // No production consumer is registered yet: the webhooks and push issues register theirs
      // here with consumers.register(ConsumerName.WEBHOOKS, handler).
      consumers =
          new ConsumerService(
              unitOfWork,
              new JooqConsumerCursorRepository(),
              events,
              config.consumer().batchSize());
      ConsumerMetrics.register(environment.metrics(), consumers, Clock.system());

      Duration connectionTimeout = db.connectionTimeout().toJavaDuration();
      readiness.register("database", () -> PgProbe.answers(dataSource, connectionTimeout));

      Duration total = config.shutdown().totalTimeout().toJavaDuration();
      lifecycle = new Lifecycle(total, exit, System::nanoTime);
      lifecycle.onStart(
          "database", () -> LOG.info("database connected: {}", PgProbe.describe(dataSource)));
      lifecycle.onStart("instance", this::checkInstance);
      if (role.servesApi()) {
        startTail(config);
        startHttpApi(config, environment);
      }
      lifecycle.onStart(
          "phase-hooks",
          () -> {
            hooks.freeze();
            jobRegistry.freeze();
            LOG.info("phase hooks frozen: hooks={}", hooks.registrations());
          });
      if (role.runsWorkers()) {
        startJobRuntime(config, argsCodec, new JobRuntimeMetrics(environment.metrics()));
        startConsumers(config);
      }
      lifecycle.onStop(StopPhase.POOL, "pool", total, dataSource::stop);
      environment.lifecycle().manage(new LifecycleManaged(lifecycle, exitGrace(config)));
      // Jetty binds the connectors before it starts the managed objects, so a taken port fails
      // the start with the lifecycle never started and never stopped: stop it here.
      environment
          .lifecycle()
          .addEventListener(
              new LifeCycle.Listener() {
                @Override
                public void lifeCycleFailure(LifeCycle event, Throwable cause) {
                  lifecycle.stop();
                }
              });

      registerAdminEndpoints(environment);
    } catch (RuntimeException e) {
      // Nothing else will stop the pool (and an embedded server) of a process that never
      // started.
      dataSource.stop();
      throw e;
    }
  }

  /**
   * Adds the log tail of the api role: the tail and its LISTEN connection ({@code bothy-tail})
   * start after the instance check and stop in the http phase, after the connectors closed; a hole
   * in the log ends the process through {@link Lifecycle#fail(Throwable)}.
   */
  private void startTail(BothyConfiguration config) {
    Duration poll = config.sync().tailPollInterval().toJavaDuration();
    tail =
        new TailService(
            eventLog,
            config.sync().tailBatchSize(),
            config.sync().tailSubscriberBuffer(),
            poll,
            lifecycle::fail);
    Listener listener =
        new Listener(
            listenConnection(config, "bothy-tail"),
            JooqEventRepository.CHANNEL,
            poll,
            config.database().listenReconnectBackoffCap().toJavaDuration(),
            payload -> tail.poke(),
            tail::poke,
            lifecycle::fail);
    lifecycle.onStart(
        "tail",
        () -> {
          tail.start();
          listener.start();
        });
    Duration budget = config.shutdown().totalTimeout().toJavaDuration();
    lifecycle.onStop(
        StopPhase.HTTP,
        "tail",
        budget,
        () -> {
          listener.close();
          tail.stop();
        });
  }

  /**
   * Adds the HTTP API of the api role: its resources and providers go to Jersey, its audit hook
   * {@code api.idempotency} to the registry; its event streams end as Jetty starts to stop, so they
   * do not hold the connectors open for the whole grace period.
   */
  private void startHttpApi(BothyConfiguration config, Environment environment) {
    ApiConfig api = config.api();
    List<ApiToken> tokens =
        api.tokens().stream()
            .map(
                t ->
                    ApiToken.ofHex(
                        t.name(),
                        t.sha256(),
                        t.scopes().stream()
                            .map(code -> Scope.fromCode(code).orElseThrow())
                            .collect(java.util.stream.Collectors.toSet())))
            .toList();
    if (tokens.isEmpty()) {
      LOG.warn("api.tokens is empty: every API request is refused with 401");
    }
    ApiSettings settings =
        new ApiSettings(
            api.maxEventsPerRequest(),
            api.maxRequestBytes(),
            api.maxPageSize(),
            api.defaultPageSize(),
            api.idempotencyRetention().toJavaDuration(),
            api.streamHeartbeat().toJavaDuration(),
            api.maxStreams(),
            api.streamRetryAfter().toJavaDuration(),
            config.sync().tailSubscriberBuffer(),
            tokens);
    httpApi =
        new HttpApi(
            settings,
            config.sync().maxPayloadBytes(),
            unitOfWork,
            hooks,
            appender,
            eventLog,
            eventTypes,
            tail,
            consumers,
            environment.getObjectMapper(),
            new HttpApiMetrics(environment.metrics()),
            Clock.system());
    httpApi.components().forEach(environment.jersey()::register);
    environment
        .lifecycle()
        .addEventListener(
            new LifeCycle.Listener() {
              @Override
              public void lifeCycleStopping(LifeCycle event) {
                httpApi.closeStreams();
              }
            });
  }

  /**
   * Registers the partition maintenance as the periodic job {@code sync.partition_maintenance}
   * (every role registers it; only worker and all work it): the job maintenance inserts one per
   * {@code sync.partitionMaintenanceInterval}, and its first pass runs as the runtime starts. The
   * changelog's first partition and {@code sync.partitionsAhead} spare ones cover the appends of
   * the moments before; a failed run is retried with the job backoff.
   */
  private void registerPartitionMaintenance(BothyConfiguration config, JooqEventRepository events) {
    PartitionMaintenance maintenance =
        new PartitionMaintenance(
            unitOfWork,
            new JooqPartitionRepository(),
            events,
            Clock.system(),
            config.sync().eventLogPartitionSize(),
            config.sync().partitionsAhead(),
            config.sync().eventRetention().toJavaDuration());
    jobRegistry.register(PartitionMaintenanceJob.kind(maintenance));
    jobRegistry.registerPeriodic(
        PartitionMaintenanceJob.periodic(
            config.sync().partitionMaintenanceInterval().toJavaDuration()));
  }

  private void startJobRuntime(
      BothyConfiguration config, JacksonPayloadCodec codec, JobRuntimeMetrics metrics) {
    JobsConfig jobs = config.jobs();
    JobSettings settings =
        new JobSettings(
            jobs.queues(),
            jobs.pollInterval().toJavaDuration(),
            jobs.retryBaseDelay().toJavaDuration(),
            jobs.retryMaxDelay().toJavaDuration(),
            jobs.rescueAfter().toJavaDuration(),
            jobs.completedRetention().toJavaDuration(),
            jobs.discardedRetention().toJavaDuration(),
            jobs.maintenanceInterval().toJavaDuration(),
            jobs.cleanerBatchSize(),
            jobs.errorMessageMaxChars(),
            config.database().listenReconnectBackoffCap().toJavaDuration());
    jobRuntime =
        new PgJobRuntime(
            unitOfWork,
            jobRegistry,
            codec,
            jobInserter,
            Clock.system(),
            settings,
            metrics,
            new OtelJobTracer(GlobalOpenTelemetry.get()),
            listenConnection(config, "bothy-jobs-listen"),
            lifecycle::fail);
    lifecycle.onStart("jobs", jobRuntime::start);
    Duration running = config.shutdown().jobsTimeout().toJavaDuration();
    lifecycle.onStop(
        StopPhase.JOBS,
        "jobs",
        config.shutdown().totalTimeout().toJavaDuration(),
        () -> jobRuntime.stop(running));
  }

  private void startConsumers(BothyConfiguration config) {
    Duration poll = config.consumer().pollInterval().toJavaDuration();
    ListenerWaker waker =
        new ListenerWaker(
            listenConnection(config, ListenerWaker.APPLICATION_NAME),
            poll,
            config.database().listenReconnectBackoffCap().toJavaDuration(),
            lifecycle::fail);
    lifecycle.onStart(
        "event_consumers",
        () -> {
          List<ConsumerName> names = consumers.freeze();
          if (names.isEmpty()) {
            // No LISTEN connection and no threads for nothing; the gauges still run.
            LOG.info("event consumers: none registered");
            return;
          }
          consumers.ensure();
          OtelJobTracer tracer = new OtelJobTracer(GlobalOpenTelemetry.get());
          consumerRunner =
              new ConsumerRunner(
                  names,
                  name -> tracer.round(name.value(), () -> consumers.round(name)),
                  waker,
                  poll,
                  lifecycle::fail);
          consumerRunner.start();
        });
    Duration total = config.shutdown().totalTimeout().toJavaDuration();
    Duration rounds = config.shutdown().consumersTimeout().toJavaDuration();
    lifecycle.onStop(
        StopPhase.CONSUMERS,
        "event_consumers",
        total,
        () -> {
          if (consumerRunner != null) {
            consumerRunner.stop(rounds);
          }
        });
  }

  ConsumerService consumers() {
    return consumers;
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

  JobRuntime jobRuntime() {
    if (jobRuntime == null) {
      throw new IllegalStateException("the " + role.code() + " role runs no job workers");
    }
    return jobRuntime;
  }

  JobInserter jobInserter() {
    return jobInserter;
  }

  JobAdmin jobAdmin() {
    return jobAdmin;
  }

  JobRegistry jobRegistry() {
    return jobRegistry;
  }

  LogTail tail() {
    if (tail == null) {
      throw new IllegalStateException("the " + role.code() + " role runs no log tail");
    }
    return tail;
  }

  /**
   * The start checks of the schema and the instance record: a database older than this binary, or
   * one never migrated, stops the start with a hint to run {@code db migrate}; a schema that
   * requires a newer server keeps the process running but never ready.
   */
  private void checkInstance() {
    InstanceRecord record;
    try {
      record = instanceState.load();
    } catch (BothyException e) {
      if (e.kind() != ErrorKind.NOT_FOUND) {
        throw e;
      }
      // A missing row, or no instance table at all: the database was never migrated.
      throw new IllegalStateException(
          "the database has no instance record (" + e.getMessage() + "): run db migrate", e);
    }
    if (record.schemaVersion() < Migrator.SCHEMA_VERSION) {
      throw new IllegalStateException(
          "the database schema version "
              + record.schemaVersion()
              + " is older than this server's "
              + Migrator.SCHEMA_VERSION
              + ": run db migrate");
    }
    instanceRecord = record;
    Optional<String> tooOld =
        ServerVersionCheck.check(BuildInfo.version(), record.minServerVersion());
    if (tooOld.isPresent()) {
      readiness.register(SCHEMA_REQUIRES_NEWER_SERVER, () -> false);
      LOG.error(
          "not ready: {} (server_version={} min_server_version={})",
          tooOld.get(),
          BuildInfo.version(),
          record.minServerVersion());
    } else {
      LOG.info(
          "instance: instance_id={} schema_version={} setup_completed={} server_version={}"
              + " min_server_version={}",
          record.instanceId(),
          record.schemaVersion(),
          record.setupCompleted(),
          BuildInfo.version(),
          record.minServerVersion());
    }
  }

  /**
   * Returns the instance record loaded at start, for the components of later issues (setup state,
   * instance id, sync epoch).
   *
   * @return the record
   * @throws IllegalStateException before the start checks ran
   */
  InstanceRecord instanceRecord() {
    if (instanceRecord == null) {
      throw new IllegalStateException("the instance record is loaded at start");
    }
    return instanceRecord;
  }

  /**
   * Builds the process's object graph.
   *
   * @param config the validated configuration, with its role assigned
   * @param environment Dropwizard's environment
   * @param exit how {@link Lifecycle#fail(Throwable)} ends the process
   * @return the assembly
   */
  static Assembly build(BothyConfiguration config, Environment environment, ProcessExit exit) {
    return new Assembly(config, environment, exit);
  }

  /**
   * Returns how long the embedded server's exit hook waits for the orderly shutdown: the
   * connectors' grace period ({@code server.shutdownGracePeriod}) plus {@code
   * shutdown.totalTimeout}, the two stages that run before the pool closes.
   */
  private static Duration exitGrace(BothyConfiguration config) {
    Duration total = config.shutdown().totalTimeout().toJavaDuration();
    if (config.getServerFactory() instanceof DefaultServerFactory server) {
      return total.plus(server.getShutdownGracePeriod().toJavaDuration());
    }
    return total;
  }

  private void registerRoleGauge(MetricRegistry metrics) {
    metrics.register(ROLE_METRIC + "." + role.code(), (Gauge<Integer>) () -> 1);
  }

  private void registerAdminEndpoints(Environment environment) {
    PrometheusRegistry prometheus = new PrometheusRegistry();
    DropwizardExports.builder()
        .dropwizardRegistry(environment.metrics())
        .metricFilter(LabelledDropwizardExports.UNLABELLED)
        .customLabelMapper(
            new CustomLabelMapper(
                List.of(
                    new MapperConfig(
                        ROLE_METRIC + ".*", "bothy_process_role", Map.of("bothy_role", "${0}")))))
        .register(prometheus);
    prometheus.register(new LabelledDropwizardExports(environment.metrics()));
    environment
        .admin()
        .addServlet("prometheus", new PrometheusMetricsServlet(prometheus))
        .addMapping("/prometheus");
    environment.admin().addServlet("healthz", new LivenessServlet()).addMapping("/healthz");
    environment
        .admin()
        .addServlet("readyz", new ReadinessServlet(readiness, environment.getObjectMapper()))
        .addMapping("/readyz");
  }

  /**
   * Returns the role of the process.
   *
   * @return the role
   */
  Role role() {
    return role;
  }

  /**
   * Returns the phase hook registry.
   *
   * @return the registry
   */
  HookRegistry hooks() {
    return hooks;
  }

  /**
   * Returns the unit of work.
   *
   * @return the unit of work
   */
  UnitOfWork unitOfWork() {
    return unitOfWork;
  }

  /**
   * Returns the event type catalogue.
   *
   * @return the catalogue
   */
  EventTypes eventTypes() {
    return eventTypes;
  }

  /**
   * Returns the appender of the event log.
   *
   * @return the appender
   */
  Appender appender() {
    return appender;
  }

  /**
   * Returns the reads of the event log.
   *
   * @return the event log
   */
  EventLog eventLog() {
    return eventLog;
  }

  /**
   * Returns the readiness registry.
   *
   * @return the registry
   */
  Readiness readiness() {
    return readiness;
  }

  /**
   * Returns the lifecycle.
   *
   * @return the lifecycle
   */
  Lifecycle lifecycle() {
    return lifecycle;
  }
}
