package dev.bothy.platform.jobs;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.PhaseHooks;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.runtime.JobAdminService;
import dev.bothy.platform.jobs.runtime.JobCompletionService;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.platform.pg.PoolSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * The wiring entry of the job runtime: builds the registry, the inserter (with its phase hook
 * {@code jobs.insert}) and the operator commands in every role, and the workers in {@code worker}
 * and {@code all}. Another module registers a job kind with one line, {@link #register(JobKind)}.
 */
public final class JobsModule {
  /**
   * Everything the module reads from the configuration; each field names its key.
   *
   * @param runtime the {@code jobs} section as the workers read it
   * @param defaultMaxAttempts {@code jobs.defaultMaxAttempts}: attempts of a kind that names none
   * @param defaultTimeout {@code jobs.defaultTimeout}: the timeout of a kind that names none
   * @param jobsStopBudget {@code shutdown.jobsTimeout}: how long running jobs may finish at stop
   * @param totalStopBudget {@code shutdown.totalTimeout}: the budget of the whole stop
   */
  public record Settings(
      JobSettings runtime,
      int defaultMaxAttempts,
      Duration defaultTimeout,
      Duration jobsStopBudget,
      Duration totalStopBudget) {
    /** Checks that every field is present. */
    public Settings {
      Objects.requireNonNull(runtime, "runtime");
      Objects.requireNonNull(defaultTimeout, "defaultTimeout");
      Objects.requireNonNull(jobsStopBudget, "jobsStopBudget");
      Objects.requireNonNull(totalStopBudget, "totalStopBudget");
    }
  }

  private final Settings settings;
  private final UnitOfWork unitOfWork;
  private final ArgsCodec codec;
  private final Clock clock;
  private final JobRegistry registry;
  private final JobInserterService inserter;
  private final JobAdmin admin;
  private final JobCompletionService completions;

  /**
   * Builds the parts every role has: the registry, the inserter and the admin operations.
   *
   * @param settings the module's settings
   * @param unitOfWork the unit of work
   * @param hooks the phase hook registry; the inserter registers {@code jobs.insert} in it
   * @param codec encodes and decodes job args
   * @param clock the process's clock
   */
  public JobsModule(
      Settings settings, UnitOfWork unitOfWork, PhaseHooks hooks, ArgsCodec codec, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.registry =
        new JobRegistry(
            settings.defaultMaxAttempts(),
            settings.defaultTimeout(),
            settings.runtime().rescueAfter());
    this.inserter = new JobInserterService(unitOfWork, hooks, registry, codec, clock);
    this.admin = new JobAdminService(unitOfWork, clock);
    this.completions = new JobCompletionService(unitOfWork, clock);
  }

  /**
   * Registers a job kind; before the process starts only.
   *
   * @param kind the kind
   * @throws IllegalArgumentException when its name is taken or its args type is not allowed
   */
  public void register(JobKind<?> kind) {
    registry.register(kind);
  }

  /**
   * Registers a periodic job of a registered kind; before the process starts only.
   *
   * @param periodic the periodic job
   */
  public void registerPeriodic(PeriodicJob periodic) {
    registry.registerPeriodic(periodic);
  }

  /**
   * Starts the workers with the process and stops them in {@link StopPhase#JOBS}: running jobs get
   * {@code shutdown.jobsTimeout} to finish, then they are handed back.
   *
   * @param lifecycle the process lifecycle; an unexpected end of a runtime thread fails it
   * @param listenConnection the dedicated LISTEN connection of {@code jobs_insert}
   * @param metrics the runtime's metrics
   * @param tracer wraps each job's work in a span
   * @return the runtime, started with the lifecycle
   */
  public JobRuntime startWorkers(
      Lifecycle lifecycle, PoolSettings listenConnection, JobMetrics metrics, JobTracer tracer) {
    PgJobRuntime started =
        new PgJobRuntime(
            unitOfWork,
            registry,
            codec,
            inserter,
            clock,
            settings.runtime(),
            metrics,
            tracer,
            listenConnection,
            lifecycle::fail);
    started.serve(completions);
    lifecycle.onStart("jobs", started::start);
    lifecycle.onStop(
        StopPhase.JOBS,
        "jobs",
        settings.totalStopBudget(),
        () -> started.stop(settings.jobsStopBudget()));
    return started;
  }

  /**
   * Returns the registry of kinds and periodic jobs.
   *
   * @return the registry
   */
  public JobRegistry registry() {
    return registry;
  }

  /**
   * Returns the inserter other modules insert jobs with.
   *
   * @return the inserter
   */
  public JobInserter inserter() {
    return inserter;
  }

  /**
   * Returns the completions a work function uses to complete jobs in a unit of its own (D-WB-3);
   * they complete nothing in a role without workers.
   *
   * @return the completions
   */
  public JobCompletions completions() {
    return completions;
  }

  /**
   * Returns the operator operations (list, show, retry, cancel, counts).
   *
   * @return the admin operations
   */
  public JobAdmin admin() {
    return admin;
  }
}
