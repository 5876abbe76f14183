package dev.bothy.instance;

import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.instance.adapters.postgres.JooqInstanceRepository;
import dev.bothy.instance.app.CounterService;
import dev.bothy.instance.app.InstanceService;
import dev.bothy.instance.domain.ServerVersionCheck;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.BuildInfo;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.Readiness;
import dev.bothy.platform.pg.Migrator;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiring entry of the instance module: the instance record, the sequence counters and the start
 * check of the schema and server versions, the same in every role.
 */
public final class InstanceModule {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceModule.class);

  /** The readiness check that fails while the schema requires a newer server. */
  public static final String SCHEMA_REQUIRES_NEWER_SERVER = "schema_requires_newer_server";

  private final InstanceState state;
  private final Counters counters;
  private volatile InstanceRecord record;

  /**
   * Builds the module.
   *
   * @param unitOfWork the unit of work
   */
  public InstanceModule(UnitOfWork unitOfWork) {
    Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.state = new InstanceService(unitOfWork, new JooqInstanceRepository());
    this.counters = new CounterService(unitOfWork, new JooqCounterRepository());
  }

  /**
   * Returns the counters; only for the module wiring that hands them to the phase hook owning a
   * counter (an ArchUnit rule keeps every other class away from them).
   *
   * @return the counters
   */
  public Counters counters() {
    return counters;
  }

  /**
   * Returns the instance record's reads and writes.
   *
   * @return the instance state
   */
  public InstanceState state() {
    return state;
  }

  /**
   * Adds the start step {@code instance}: a database older than this binary, or one never migrated,
   * stops the start with a hint to run {@code db migrate}; a schema that requires a newer server
   * keeps the process running but never ready ({@value #SCHEMA_REQUIRES_NEWER_SERVER}).
   *
   * @param lifecycle the process lifecycle
   * @param readiness the readiness registry
   */
  public void checkAtStart(Lifecycle lifecycle, Readiness readiness) {
    lifecycle.onStart("instance", () -> check(readiness));
  }

  /**
   * Returns the instance record loaded at start.
   *
   * @return the record
   * @throws IllegalStateException before the start check ran
   */
  public InstanceRecord record() {
    InstanceRecord loaded = record;
    if (loaded == null) {
      throw new IllegalStateException("the instance record is loaded at start");
    }
    return loaded;
  }

  private void check(Readiness readiness) {
    InstanceRecord loaded;
    try {
      loaded = state.load();
    } catch (BothyException e) {
      if (e.kind() != ErrorKind.NOT_FOUND) {
        throw e;
      }
      // A missing row, or no instance table at all: the database was never migrated. The
      // cause's own words end in the same advice, so they stay in the cause.
      throw new BothyException(
          ErrorKind.CONFLICT,
          "the database has no instance record, so db migrate never ran on it: run db migrate",
          e);
    }
    if (loaded.schemaVersion() < Migrator.SCHEMA_VERSION) {
      // A BothyException: the command's last line is this sentence, not a stack trace.
      throw new BothyException(
          ErrorKind.CONFLICT,
          "the database schema version "
              + loaded.schemaVersion()
              + " is older than this server's "
              + Migrator.SCHEMA_VERSION
              + ": run db migrate",
          null);
    }
    record = loaded;
    Optional<String> tooOld =
        ServerVersionCheck.check(BuildInfo.version(), loaded.minServerVersion());
    if (tooOld.isPresent()) {
      readiness.register(SCHEMA_REQUIRES_NEWER_SERVER, () -> false);
      LOG.error(
          "not ready: {} (server_version={} min_server_version={})",
          tooOld.get(),
          BuildInfo.version(),
          loaded.minServerVersion());
    } else {
      LOG.info(
          "instance: instance_id={} schema_version={} setup_completed={} server_version={}"
              + " min_server_version={}",
          loaded.instanceId(),
          loaded.schemaVersion(),
          loaded.setupCompleted(),
          BuildInfo.version(),
          loaded.minServerVersion());
    }
  }
}
