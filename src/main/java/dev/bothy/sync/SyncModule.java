package dev.bothy.sync;

import dev.bothy.instance.Counters;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHooks;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobsModule;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.telemetry.TraceContext;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.adapters.postgres.JooqPartitionRepository;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.sync.app.AppendHook;
import dev.bothy.sync.app.AppendMetrics;
import dev.bothy.sync.app.AppendService;
import dev.bothy.sync.app.ConsumerRunner;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.sync.app.PartitionMaintenance;
import dev.bothy.sync.app.PartitionMaintenanceJob;
import dev.bothy.sync.app.TailService;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiring entry of the event log: the appender and its phase hook {@code sync.append}, the log
 * reads, the partition maintenance job and the worker consumers' state in every role; the log tail
 * in {@code api} and {@code all}; the consumer runner in {@code worker} and {@code all}. A module
 * registers a worker consumer with one line, {@link #registerConsumer(ConsumerName,
 * ConsumerHandler)}.
 */
public final class SyncModule {
  private static final Logger LOG = LoggerFactory.getLogger(SyncModule.class);

  /**
   * The notification channel of committed events, for a module that wakes on them with a {@code
   * platform.pg.Listener} of its own (the bus relay); the payload is the unit's last number.
   */
  public static final String LOG_CHANNEL = JooqEventRepository.CHANNEL;

  /** The application name of the log tail's LISTEN connection. */
  public static final String TAIL_APPLICATION_NAME = "bothy-tail";

  /**
   * Everything the module reads from the configuration; each field names its key.
   *
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   * @param maxConcurrentAppends {@code sync.maxConcurrentAppends}
   * @param appendPermitWait {@code database.lockTimeout}: the longest wait for an append turn
   * @param partitionSize {@code sync.eventLogPartitionSize}
   * @param partitionsAhead {@code sync.partitionsAhead}
   * @param retention {@code sync.eventRetention}
   * @param partitionMaintenanceInterval {@code sync.partitionMaintenanceInterval}
   * @param tailBatchSize {@code sync.tailBatchSize}
   * @param tailSubscriberBuffer {@code sync.tailSubscriberBuffer}
   * @param tailPollInterval {@code sync.tailPollInterval}
   * @param consumerBatchSize {@code consumer.batchSize}
   * @param consumerPollInterval {@code consumer.pollInterval}
   * @param listenReconnectBackoffCap {@code database.listenReconnectBackoffCap}
   * @param totalStopBudget {@code shutdown.totalTimeout}
   */
  public record Settings(
      int maxPayloadBytes,
      int maxConcurrentAppends,
      Duration appendPermitWait,
      long partitionSize,
      int partitionsAhead,
      Duration retention,
      Duration partitionMaintenanceInterval,
      int tailBatchSize,
      int tailSubscriberBuffer,
      Duration tailPollInterval,
      int consumerBatchSize,
      Duration consumerPollInterval,
      Duration listenReconnectBackoffCap,
      Duration totalStopBudget) {
    /** Checks that every duration is present. */
    public Settings {
      Objects.requireNonNull(appendPermitWait, "appendPermitWait");
      Objects.requireNonNull(retention, "retention");
      Objects.requireNonNull(partitionMaintenanceInterval, "partitionMaintenanceInterval");
      Objects.requireNonNull(tailPollInterval, "tailPollInterval");
      Objects.requireNonNull(consumerPollInterval, "consumerPollInterval");
      Objects.requireNonNull(listenReconnectBackoffCap, "listenReconnectBackoffCap");
      Objects.requireNonNull(totalStopBudget, "totalStopBudget");
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final EventTypes eventTypes = EventTypes.withBuiltIns();
  private final Appender appender;
  private final EventLog eventLog;
  private final ConsumerService consumers;
  private volatile ConsumerRunner runner;

  /**
   * Builds the parts every role has and registers the hook {@code sync.append} and the job kind
   * {@code sync.partition_maintenance} with its periodic job.
   *
   * @param settings the module's settings
   * @param unitOfWork the unit of work
   * @param hooks the phase hook registry
   * @param counters the counters; {@code event_seq} is advanced by the append hook only
   * @param jobs the job module, for the partition maintenance job
   * @param codec encodes event payloads
   * @param metrics the append metrics
   * @param clock the process's clock
   */
  public SyncModule(
      Settings settings,
      UnitOfWork unitOfWork,
      PhaseHooks hooks,
      Counters counters,
      JobsModule jobs,
      PayloadCodec codec,
      AppendMetrics metrics,
      Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    JooqEventRepository events = new JooqEventRepository();
    appender = new AppendService(unitOfWork, eventTypes, codec, clock, settings.maxPayloadBytes());
    hooks.register(
        Phase.SYNC,
        AppendHook.NAME,
        new AppendHook(
            unitOfWork,
            counters,
            events,
            metrics,
            settings.maxConcurrentAppends(),
            settings.appendPermitWait()));
    eventLog = new EventLogService(unitOfWork, events);
    consumers =
        new ConsumerService(
            unitOfWork, new JooqConsumerCursorRepository(), events, settings.consumerBatchSize());
    // Every role registers the maintenance; only worker and all work it. The changelog's first
    // partition and sync.partitionsAhead spare ones cover the appends before its first run.
    jobs.register(
        PartitionMaintenanceJob.kind(
            new PartitionMaintenance(
                unitOfWork,
                new JooqPartitionRepository(),
                events,
                clock,
                settings.partitionSize(),
                settings.partitionsAhead(),
                settings.retention())));
    jobs.registerPeriodic(
        PartitionMaintenanceJob.periodic(settings.partitionMaintenanceInterval()));
  }

  /**
   * Registers a worker consumer; before the process starts only. Every role knows the consumer (for
   * its lag gauges); {@code worker} and {@code all} run its rounds.
   *
   * @param name the consumer, from the closed set of {@link ConsumerName}
   * @param handler turns a batch of events into jobs inside the round
   */
  public void registerConsumer(ConsumerName name, ConsumerHandler handler) {
    consumers.register(name, handler);
  }

  /**
   * Adds the log tail of {@code api} and {@code all}: the tail and its LISTEN connection start with
   * the process and stop in {@link StopPhase#HTTP}, after the connectors closed; a hole in the log
   * ends the process through {@link Lifecycle#fail(Throwable)}.
   *
   * @param lifecycle the process lifecycle
   * @param listenConnection the tail's dedicated LISTEN connection
   * @return the tail
   */
  public LogTail startTail(Lifecycle lifecycle, PoolSettings listenConnection) {
    TailService started =
        new TailService(
            eventLog,
            settings.tailBatchSize(),
            settings.tailSubscriberBuffer(),
            settings.tailPollInterval(),
            lifecycle::fail);
    Listener listener =
        new Listener(
            listenConnection,
            JooqEventRepository.CHANNEL,
            settings.tailPollInterval(),
            settings.listenReconnectBackoffCap(),
            payload -> started.poke(),
            started::poke,
            lifecycle::fail);
    lifecycle.onStart(
        "tail",
        () -> {
          started.start();
          listener.start();
        });
    lifecycle.onStop(
        StopPhase.HTTP,
        "tail",
        settings.totalStopBudget(),
        () -> {
          listener.close();
          started.stop();
        });
    return started;
  }

  /**
   * Adds the consumer runner of {@code worker} and {@code all}: at start it freezes the
   * registrations, creates missing cursor rows at the head and runs every consumer on its own
   * thread. Its stop step in {@link StopPhase#CONSUMERS} has no budget of its own: a running round
   * gets what remains of {@code shutdown.totalTimeout} to commit, after which it is cancelled on
   * the database server and rolls back. With no consumer registered it opens no connection and
   * starts no thread.
   *
   * @param lifecycle the process lifecycle
   * @param listenConnection the runner's dedicated LISTEN connection
   * @param tracer wraps the handling of each non-empty round in a span
   */
  public void startConsumers(
      Lifecycle lifecycle, PoolSettings listenConnection, RoundTracer tracer) {
    ListenerWaker waker =
        new ListenerWaker(
            listenConnection,
            settings.consumerPollInterval(),
            settings.listenReconnectBackoffCap(),
            lifecycle::fail);
    lifecycle.onStart(
        "event_consumers",
        () -> {
          List<ConsumerName> names = consumers.freeze();
          if (names.isEmpty()) {
            LOG.info("event consumers: none registered");
            return;
          }
          consumers.ensure();
          runner =
              new ConsumerRunner(
                  names,
                  // Polls run untraced; a round that handles a batch is a root span of its own.
                  name -> TraceContext.untraced(() -> consumers.round(name, tracer)),
                  consumers::cancelRound,
                  waker,
                  settings.consumerPollInterval(),
                  clock,
                  Pause.real(),
                  lifecycle::fail);
          runner.start();
        });
    lifecycle.onStopWithRest(
        StopPhase.CONSUMERS,
        "event_consumers",
        budget -> {
          ConsumerRunner running = runner;
          if (running != null) {
            running.stop(budget);
          }
        });
  }

  /**
   * Returns the event type catalogue.
   *
   * @return the catalogue
   */
  public EventTypes eventTypes() {
    return eventTypes;
  }

  /**
   * Returns the appender.
   *
   * @return the appender
   */
  public Appender appender() {
    return appender;
  }

  /**
   * Returns the reads of the event log.
   *
   * @return the event log
   */
  public EventLog eventLog() {
    return eventLog;
  }

  /**
   * Returns the worker consumers' states.
   *
   * @return the consumers
   */
  public Consumers consumers() {
    return consumers;
  }
}
