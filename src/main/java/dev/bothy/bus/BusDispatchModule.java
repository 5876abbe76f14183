package dev.bothy.bus;

import dev.bothy.bus.adapters.nats.CoreNotices;
import dev.bothy.bus.adapters.nats.NatsConsumerRunner;
import dev.bothy.bus.adapters.postgres.JooqDeadLetterRepository;
import dev.bothy.bus.adapters.postgres.JooqDeliveryRepository;
import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.DeadLetterService;
import dev.bothy.bus.app.DeliveryRetentionJob;
import dev.bothy.bus.app.Dispatch;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.bus.app.KeepAlive;
import dev.bothy.bus.app.LogDispatchConsumer;
import dev.bothy.bus.app.NatsDispatcher;
import dev.bothy.bus.app.Notices;
import dev.bothy.bus.domain.ConsumerFilters;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobsModule;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.PayloadCodec;
import dev.bothy.sync.SyncModule;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiring entry of bus dispatch, built in every role with or without NATS: the registry of every
 * module's {@link BusConsumer}s, the dedupe table and the dead letters, the job kinds {@code
 * bus.dispatch} and {@code bus.delivery_retention} (with its periodic job), and in {@code worker}
 * and {@code all} one transport: the NATS durables when {@code bus.nats.url} is set, else the log
 * transport, the worker consumer {@code bus} (ADR 0024).
 *
 * <pre>{@code
 * BusDispatchModule dispatch = new BusDispatchModule(settings, uow, jobs, sync, codec, metrics, clock);
 * dispatch.register("system", SystemModule.busConsumers()); // every module, every role
 * dispatch.checkAtStart(lifecycle, sync);             // every role: names and event types
 * dispatch.registerLogConsumer(sync);                  // every role, without NATS
 * dispatch.startNatsConsumers(lifecycle, bus, settings); // worker and all, with bus.nats.url
 * }</pre>
 */
public final class BusDispatchModule {
  private static final Logger LOG = LoggerFactory.getLogger(BusDispatchModule.class);

  /**
   * Everything the module reads from the configuration; each field names its key.
   *
   * @param deliveryRetention {@code bus.dispatch.deliveryRetention}
   * @param deliveryRetentionInterval {@code bus.dispatch.deliveryRetentionInterval}
   * @param jobTimeout {@code bus.dispatch.jobTimeout}
   * @param cleanerBatchSize {@code jobs.cleanerBatchSize}: rows per delete
   * @param errorMessageMaxChars {@code jobs.errorMessageMaxChars}: a dead letter's message
   * @param readAhead {@code bus.dispatch.readAhead}: the events one read of a {@code bus.dispatch}
   *     job asks for (D-BD-12)
   * @param readAheadKeep {@code bus.dispatch.readAheadKeep}: how long an event read ahead is served
   *     from memory
   */
  public record Settings(
      Duration deliveryRetention,
      Duration deliveryRetentionInterval,
      Duration jobTimeout,
      int cleanerBatchSize,
      int errorMessageMaxChars,
      int readAhead,
      Duration readAheadKeep) {
    /** Checks that every field is present. */
    public Settings {
      Objects.requireNonNull(deliveryRetention, "deliveryRetention");
      Objects.requireNonNull(deliveryRetentionInterval, "deliveryRetentionInterval");
      Objects.requireNonNull(jobTimeout, "jobTimeout");
      Objects.requireNonNull(readAheadKeep, "readAheadKeep");
      if (readAheadKeep.isNegative() || readAheadKeep.isZero()) {
        throw new IllegalArgumentException("bus.dispatch.readAheadKeep must be positive");
      }
      if (readAhead < 1) {
        throw new IllegalArgumentException("bus.dispatch.readAhead must be at least 1");
      }
    }
  }

  private final HandlerRegistry registry = new HandlerRegistry();
  private final LogDispatchConsumer logConsumer;
  private final DeadLetterService deadLetters;
  private final Dispatch dispatch;
  private final AtomicReference<Notices> live = new AtomicReference<>(Notices.NONE);
  private final List<NatsConsumerRunner> runners = new CopyOnWriteArrayList<>();
  private final Clock clock;

  /**
   * Builds the module and registers its job kinds.
   *
   * @param settings the module's settings
   * @param unitOfWork the unit of work
   * @param jobs the job module; the kinds are registered in it
   * @param sync the event log module: the appender of the handlers' follow-on events, the reads of
   *     the dispatch jobs
   * @param codec decodes payloads into the event types' records
   * @param metrics where dispatch is counted
   * @param clock the process's clock
   */
  public BusDispatchModule(
      Settings settings,
      UnitOfWork unitOfWork,
      JobsModule jobs,
      SyncModule sync,
      PayloadCodec codec,
      DispatchMetrics metrics,
      Clock clock) {
    Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    JooqDeliveryRepository deliveries = new JooqDeliveryRepository();
    JooqDeadLetterRepository letters = new JooqDeadLetterRepository();
    // The live hints go to NATS once its consumers started; until then (and without NATS) nowhere.
    this.dispatch =
        new Dispatch(
            unitOfWork,
            sync.appender(),
            codec,
            deliveries,
            letters,
            new PgProjectionLock(),
            metrics,
            clock,
            settings.errorMessageMaxChars(),
            (subject, body) -> live.get().publish(subject, body));
    jobs.register(
        new DispatchJob(
                registry, dispatch, sync.eventLog(), settings.readAhead(), settings.readAheadKeep())
            .kind(settings.jobTimeout()));
    jobs.register(
        DeliveryRetentionJob.kind(
            unitOfWork,
            deliveries,
            letters,
            clock,
            settings.deliveryRetention(),
            settings.cleanerBatchSize()));
    jobs.registerPeriodic(DeliveryRetentionJob.periodic(settings.deliveryRetentionInterval()));
    this.logConsumer = new LogDispatchConsumer(registry, jobs.inserter());
    this.deadLetters = new DeadLetterService(unitOfWork, letters, jobs.inserter(), clock);
  }

  /**
   * Registers the bus consumers a module declares in its wiring (one method per module, such as
   * {@code SystemModule.busConsumers()}); every role, before the start.
   *
   * @param module the declaring module's name
   * @param consumers its consumers
   * @throws IllegalArgumentException naming both declarations for a durable or handler name taken
   *     by another consumer, or a consumer not of {@code module}
   */
  public void register(String module, List<BusConsumer> consumers) {
    registry.register(module, consumers);
  }

  /**
   * Adds the start step {@code bus_consumers}: checks that the event catalogue has every handler's
   * event type with its payload record and freezes the registrations, failing the start otherwise.
   *
   * @param lifecycle the process lifecycle
   * @param sync the event log module, for its catalogue
   */
  public void checkAtStart(Lifecycle lifecycle, SyncModule sync) {
    lifecycle.onStart(
        "bus_consumers",
        () -> {
          registry.freeze(sync.eventTypes());
          LOG.info(
              "bus consumers registered: consumers={}",
              registry.consumers().stream().map(BusConsumer::durable).toList());
        });
  }

  /**
   * Registers the log transport, the worker consumer {@code bus}, when any module declared a bus
   * consumer; in every role without NATS (for its lag gauges; {@code worker} and {@code all} run
   * its rounds), before the consumers start. Without a bus consumer there is no cursor row to keep
   * moving.
   *
   * @param sync the event log module
   * @return true when the consumer was registered
   */
  public boolean registerLogConsumer(SyncModule sync) {
    if (registry.isEmpty()) {
      return false;
    }
    sync.registerConsumer(ConsumerName.BUS, logConsumer);
    return true;
  }

  /**
   * Adds the NATS transport of every registered bus consumer (ADR 0024), in {@code worker} and
   * {@code all} when {@code bus.nats.url} is set, instead of {@link #registerLogConsumer}. Its
   * start step {@code bus_nats_consumers}, after the bus's, creates or updates each durable ({@code
   * filterSubjects} on a server of 2.10 or newer, one subject on 2.9: see {@code ConsumerFilters}),
   * starts the keep-alive loop and one pull loop per durable, and sends live hints and dead-letter
   * notices on the connection from then on. Its stop step in {@link StopPhase#CONSUMERS} gets what
   * remains of {@code shutdown.totalTimeout} for the running dispatches.
   *
   * @param lifecycle the process lifecycle
   * @param bus the bus, whose start step {@code bus} was added before
   * @param settings {@code bus.consumers.*}
   * @return false when no module declared a bus consumer (nothing added)
   */
  public boolean startNatsConsumers(
      Lifecycle lifecycle, BusModule bus, BusConsumerSettings settings) {
    Objects.requireNonNull(settings, "settings");
    if (registry.isEmpty()) {
      return false;
    }
    AtomicReference<KeepAlive> keepAlive = new AtomicReference<>(KeepAlive.NONE);
    lifecycle.onStart(
        "bus_nats_consumers",
        () -> {
          Connection connection = bus.connection();
          JetStreamManagement jsm = bus.management();
          String version = connection.getServerInfo().getVersion();
          keepAlive.set(KeepAlive.start(settings.keepAliveInterval(), lifecycle::fail));
          live.set(new CoreNotices(connection));
          for (BusConsumer consumer : registry.consumers()) {
            ConsumerFilters filters = NatsConsumerRunner.ensure(jsm, consumer, version, settings);
            NatsConsumerRunner runner =
                new NatsConsumerRunner(
                    connection,
                    consumer,
                    new NatsDispatcher(consumer, registry, dispatch, keepAlive.get(), live.get()),
                    settings,
                    clock,
                    lifecycle::fail);
            runner.start();
            runners.add(runner);
            LOG.info(
                "bus consumer started on NATS: bothy.bus.durable={} server_version={}"
                    + " filter_subjects={}",
                consumer.durable(),
                version,
                filters.subjects());
          }
        });
    lifecycle.onStopWithRest(
        StopPhase.CONSUMERS,
        "bus_nats_consumers",
        budget -> {
          NatsConsumerRunner.stopAll(runners, budget);
          // Nothing is held once the pulls ended: the keep-alive's tick ends at once.
          keepAlive.get().stop(budget);
          live.set(Notices.NONE);
        });
    return true;
  }

  /**
   * Returns the sampled counts of this process's NATS durables, for the gauges.
   *
   * @return one per started durable; empty on the log transport
   */
  public List<BusConsumerState> natsConsumerStates() {
    return runners.stream().map(NatsConsumerRunner::state).toList();
  }

  /**
   * Returns the NATS durables whose pulls in this process are failing now, for the health check
   * {@code bus_consumers}.
   *
   * @return one entry per failing durable, empty when every pull loop's last pull succeeded (or on
   *     the log transport)
   */
  public List<BusPullFailure> natsPullFailures() {
    return runners.stream().flatMap(r -> r.pullFailure().stream()).toList();
  }

  /**
   * Returns every registered bus consumer, for the event reference and the flow files' check.
   *
   * @return the consumers, in registration order
   */
  public List<BusConsumer> consumers() {
    return registry.consumers();
  }

  /**
   * Returns the operator's verbs on dead letters.
   *
   * @return the dead letters
   */
  public DeadLetters deadLetters() {
    return deadLetters;
  }
}
