package dev.bothy.testing;

import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.JobSettings;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.jobs.runtime.JobAdminService;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.wire.JacksonPayloadCodec;
import dev.bothy.wire.config.JobsConfig;
import io.dropwizard.jackson.Jackson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * The job runtime wired for tests: a registry, a unit of work over a pool, the inserter, the admin
 * and runtimes that stand in for separate processes (each on its own pool, if given one).
 */
public final class JobsFixture {
  /** The {@code jobs.rescueAfter} of {@link #settings} and of the registry. */
  public static final Duration RESCUE_AFTER = Duration.ofMinutes(10);

  /** Settings with short intervals; tests override what they test. */
  public static JobSettings settings(Map<String, Integer> queues) {
    return new JobSettings(
        queues,
        Duration.ofMillis(200),
        JobsConfig.DEFAULT_FETCH_LOOKBACK.toJavaDuration(),
        Duration.ofSeconds(1),
        Duration.ofMinutes(10),
        RESCUE_AFTER,
        Duration.ofDays(1),
        Duration.ofDays(7),
        Duration.ofHours(1),
        1000,
        500,
        Duration.ofSeconds(2));
  }

  public final JobRegistry registry;
  public final PgUnitOfWork uow;
  public final JobInserterService inserter;
  public final JobAdminService admin;
  public final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());
  public final List<Throwable> fatal = new CopyOnWriteArrayList<>();
  private final Clock clock;
  private final String jdbcUrl;
  private final List<PgJobRuntime> runtimes = new ArrayList<>();

  /**
   * Creates the fixture.
   *
   * @param pg the test database
   * @param clock the clock of inserts and runtimes
   */
  public JobsFixture(PgExtension pg, Clock clock) {
    this.clock = clock;
    this.jdbcUrl = pg.jdbcUrl();
    this.registry = new JobRegistry(3, Duration.ofSeconds(30), RESCUE_AFTER);
    HookRegistry hooks = new HookRegistry();
    this.uow =
        new PgUnitOfWork(
            pg.app(),
            EventLogFixture.SETTINGS,
            hooks,
            d -> Thread.sleep(d.toMillis()),
            new Random());
    this.inserter = new JobInserterService(uow, hooks, registry, codec, clock);
    this.admin = new JobAdminService(uow, clock);
  }

  /** A unit of work over a pool, as each process has its own. */
  public static PgUnitOfWork unitOfWork(DataSource pool) {
    return new PgUnitOfWork(
        pool,
        EventLogFixture.SETTINGS,
        new HookRegistry(),
        d -> Thread.sleep(d.toMillis()),
        new Random());
  }

  /**
   * A runtime on its own unit of work; stopped by {@link #stopAll()}.
   *
   * @param pool its pool (a separate pool stands in for a separate process)
   * @param settings its settings
   * @return the runtime, not started
   */
  public PgJobRuntime runtime(DataSource pool, JobSettings settings) {
    HookRegistry hooks = new HookRegistry();
    PgUnitOfWork own =
        new PgUnitOfWork(
            pool, EventLogFixture.SETTINGS, hooks, d -> Thread.sleep(d.toMillis()), new Random());
    PgJobRuntime runtime =
        new PgJobRuntime(
            own,
            registry,
            codec,
            new JobInserterService(own, hooks, registry, codec, clock),
            clock,
            settings,
            JobMetrics.NONE,
            JobTracer.NONE,
            new PoolSettings(
                jdbcUrl, "bothy_app", null, 1, Duration.ofSeconds(5), "bothy-jobs-listen"),
            fatal::add);
    runtimes.add(runtime);
    return runtime;
  }

  /** Stops every runtime this fixture made, with a short budget. */
  public void stopAll() {
    for (PgJobRuntime r : runtimes) {
      r.stop(Duration.ofSeconds(5));
    }
  }
}
