package dev.bothy.wire;

import dev.bothy.instance.InstanceRecord;
import dev.bothy.instance.adapters.postgres.JooqInstanceRepository;
import dev.bothy.instance.app.InstanceService;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.Sleeper;
import dev.bothy.platform.pg.TxSettings;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a finished migration in the instance record, after the changesets of {@code db migrate}
 * (and of the embedded default's start).
 *
 * <p>Only when the database's schema version equals the one this binary knows: a database that a
 * newer binary migrated keeps its record (the rollback path: an older, still allowed server may run
 * against a newer schema), and a partial migration ({@code db migrate --count}) records nothing.
 */
final class MigrationRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(MigrationRecorder.class);

  private MigrationRecorder() {}

  /**
   * Records the migration when the schema is exactly this binary's.
   *
   * @param migration a data source of the migration role (the owner of {@code instance})
   * @param settings the unit of work settings
   */
  static void record(DataSource migration, TxSettings settings) {
    long applied = Migrator.appliedSchemaVersion(migration);
    if (applied != Migrator.SCHEMA_VERSION) {
      LOG.info(
          "instance record left unchanged: database_schema_version={} binary_schema_version={}",
          applied,
          Migrator.SCHEMA_VERSION);
      return;
    }
    InstanceService state =
        new InstanceService(
            new PgUnitOfWork(
                migration,
                settings,
                new HookRegistry(),
                Sleeper.system(),
                ThreadLocalRandom.current()),
            new JooqInstanceRepository());
    InstanceRecord record =
        state.recordMigration(Migrator.SCHEMA_VERSION, Migrator.MIN_SERVER_VERSION);
    LOG.info(
        "instance record written: instance_id={} schema_version={} min_server_version={}",
        record.instanceId(),
        record.schemaVersion(),
        record.minServerVersion());
  }
}
