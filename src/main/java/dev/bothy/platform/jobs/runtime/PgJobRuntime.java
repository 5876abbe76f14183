package dev.bothy.platform.jobs.runtime;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.ArgsCodec;
import dev.bothy.platform.jobs.JobInserter;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobRuntime;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.jobs.PeriodicJob;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.platform.pg.Sleeper;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link JobRuntime}: per queue a {@link JobFetcher} with a fixed pool of {@code jobs.queues}
 * workers, each job run by the {@link JobExecutor} with its watchdog, outcomes recorded by the
 * {@link JobCompleter} (successes in batches), one LISTEN connection on {@code jobs_insert} that
 * wakes the fetchers, and the {@link JobMaintenance} (rescuer, cleaner, periodic jobs) under an
 * advisory lock.
 *
 * <p>Each background loop is a {@code ServiceLoop}: an unexpected end of one goes to the {@code
 * onFatal} handler ({@code lifecycle.fail}, exit 1).
 */
public final class PgJobRuntime implements JobRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(PgJobRuntime.class);

  private final UnitOfWork unitOfWork;
  private final JobRegistry registry;
  private final ArgsCodec codec;
  private final Clock clock;
  private final JobSettings settings;
  private final JobMetrics metrics;
  private final JobTracer tracer;
  private final Consumer<Throwable> onFatal;
  private final PoolSettings listenConnection;
  private final String clientId;
  private final JobStore store = new JobStore();
  private final JobMaintenance maintenance;
  private final Map<String, JobFetcher> fetchers = new LinkedHashMap<>();
  private final AtomicBoolean started = new AtomicBoolean();
  // The wakes at the end of snoozes; one thread, the wakes themselves only signal the loops.
  private final ScheduledExecutorService wakes =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bothy-jobs-snooze-wakes");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean stopping;
  private JobCompleter completer;
  private JobExecutor executor;
  private JobCompletionService completions;
  private Listener listener;

  /**
   * Creates a runtime; nothing runs until {@link #start()}.
   *
   * @param unitOfWork runs every statement in its own unit
   * @param registry the kinds (frozen by the time it starts)
   * @param codec reads args
   * @param inserter inserts the periodic jobs
   * @param clock decides what is due; the retry, rescue and retention times
   * @param settings the {@code jobs} configuration
   * @param metrics where attempts and fetches are reported
   * @param tracer wraps each job's work in a span
   * @param listenConnection the LISTEN connection's settings (its own application name)
   * @param onFatal called when a runtime thread ends unexpectedly
   */
  public PgJobRuntime(
      UnitOfWork unitOfWork,
      JobRegistry registry,
      ArgsCodec codec,
      JobInserter inserter,
      Clock clock,
      JobSettings settings,
      JobMetrics metrics,
      JobTracer tracer,
      PoolSettings listenConnection,
      Consumer<Throwable> onFatal) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.listenConnection = Objects.requireNonNull(listenConnection, "listenConnection");
    this.onFatal = Objects.requireNonNull(onFatal, "onFatal");
    this.clientId = processName() + "/" + Ids.newId();
    this.maintenance =
        new JobMaintenance(
            unitOfWork,
            store,
            registry,
            Objects.requireNonNull(inserter, "inserter"),
            clock,
            settings,
            onFatal);
  }

  /** {@code pid@host}, so operators see in {@code attempted_by} which process works a job. */
  private static String processName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return ProcessHandle.current().pid() + "@" + host;
  }

  /**
   * Serves the given completions once started: the jobs their callers complete in their units are
   * this runtime's running jobs (D-WB-3). Call before {@link #start()}.
   *
   * @param service the process's completions, which other modules hold
   */
  public void serve(JobCompletionService service) {
    if (started.get()) {
      throw new IllegalStateException("serve before the job runtime starts");
    }
    this.completions = Objects.requireNonNull(service, "service");
  }

  @Override
  public String clientId() {
    return clientId;
  }

  @Override
  public void start() {
    if (started.get()) {
      throw new IllegalStateException("the job runtime is already started");
    }
    check();
    started.set(true);
    completer =
        new JobCompleter(
            unitOfWork,
            registry,
            store,
            clock,
            clientId,
            settings,
            metrics,
            Sleeper.system(),
            this::wakeAfter,
            onFatal);
    if (completions != null) {
      completions.bind(store, clientId, completer);
    }
    executor = new JobExecutor(registry, codec, tracer, settings, completer);
    settings
        .queues()
        .forEach(
            (name, workers) ->
                fetchers.put(
                    name,
                    new JobFetcher(
                        name,
                        workers,
                        unitOfWork,
                        store,
                        clock,
                        clientId,
                        settings,
                        metrics,
                        executor,
                        onFatal)));
    completer.start();
    fetchers.values().forEach(JobFetcher::start);
    listener =
        new Listener(
            listenConnection,
            JobStore.CHANNEL,
            settings.pollInterval(),
            settings.listenReconnectBackoffCap(),
            this::wake,
            () -> fetchers.values().forEach(JobFetcher::wake),
            onFatal);
    listener.start();
    maintenance.start();
    LOG.info(
        "job runtime started: client_id={} queues={} kinds={}",
        clientId,
        settings.queues(),
        registry.kinds().stream().map(r -> r.kind().name()).toList());
  }

  /** The start's checks of the registry against the configuration, naming the keys. */
  private void check() {
    for (JobRegistry.Registered<?> r : registry.kinds()) {
      if (!settings.queues().containsKey(r.kind().queue())) {
        throw new IllegalStateException(
            "job kind "
                + r.kind().name()
                + " uses queue '"
                + r.kind().queue()
                + "', which jobs.queues does not list; add it with its worker count");
      }
    }
    for (PeriodicJob p : registry.periodic()) {
      Duration shortest =
          settings.completedRetention().compareTo(settings.discardedRetention()) < 0
              ? settings.completedRetention()
              : settings.discardedRetention();
      if (p.interval().compareTo(shortest) > 0) {
        throw new IllegalStateException(
            "the periodic job "
                + p.args().getClass().getSimpleName()
                + " runs less often than jobs.completedRetention or jobs.discardedRetention:"
                + " the cleaner would delete its job before the period ends and the period would"
                + " run twice; lengthen the retentions");
      }
    }
  }

  /** Wakes a queue's fetcher once {@code delay} has passed: a snoozed job is due then. */
  private void wakeAfter(String queue, Duration delay) {
    JobFetcher fetcher = fetchers.get(queue);
    if (fetcher == null || stopping) {
      return;
    }
    try {
      wakes.schedule(fetcher::wake, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      // The stop began meanwhile: the job is handed back or fetched by the next runtime.
    }
  }

  private void wake(String queue) {
    JobFetcher fetcher = fetchers.get(queue);
    if (fetcher != null) {
      fetcher.wake();
    }
  }

  @Override
  public void stop(Duration budget) {
    if (!started.get() || stopping) {
      return;
    }
    stopping = true;
    completer.beginStop();
    long deadline = System.nanoTime() + budget.toNanos();
    listener.close();
    wakes.shutdownNow();
    maintenance.stop();
    JobFetcher.stopFetching(fetchers.values(), remaining(deadline));
    boolean finished = true;
    for (JobFetcher fetcher : fetchers.values()) {
      finished &= fetcher.awaitWorkers(deadline);
    }
    if (!finished) {
      // Past the budget: interrupt what still runs; its rows go back below, so the interrupt
      // must not be recorded as a failed attempt.
      executor.abandon();
      fetchers.values().forEach(JobFetcher::interruptWorkers);
      executor.cancelAsync();
      LOG.warn("job runtime stop: jobs still running past the budget are handed back");
    }
    Duration lastBatch = remaining(deadline);
    completer.stop(
        lastBatch.compareTo(settings.pollInterval()) > 0 ? lastBatch : settings.pollInterval());
    executor.close();
    try {
      int handedBack = unitOfWork.run(() -> store.handBack(clientId));
      LOG.info("job runtime stopped: client_id={} handed_back={}", clientId, handedBack);
    } catch (RuntimeException e) {
      LOG.warn(
          "job runtime stop: handing back running jobs failed; the rescuer takes them after"
              + " jobs.rescueAfter: error.type={} sqlstate={}",
          ErrorFields.type(e),
          ErrorFields.sqlState(e));
    }
  }

  private static Duration remaining(long deadlineNanos) {
    return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
  }

  /**
   * Runs one pass of the maintenance now, as the runtime does every {@code
   * jobs.maintenanceInterval}: under the maintenance advisory lock, the rescuer, the cleaner and
   * the periodic inserts, in one unit.
   *
   * @return false when another worker held the lock and this pass did nothing
   */
  public boolean maintain() {
    return maintenance.pass();
  }
}
