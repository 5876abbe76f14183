package dev.bothy.instance.adapters.postgres;

import static dev.bothy.db.Tables.INSTANCE;

import dev.bothy.db.tables.records.InstanceRecord;
import dev.bothy.instance.app.InstanceRepository;
import dev.bothy.platform.pg.PgTx;
import java.util.Optional;
import java.util.UUID;

/** The instance record in {@code instance}, the table's one row ({@code id = 1}). */
public final class JooqInstanceRepository implements InstanceRepository {
  private static final short ROW_ID = 1;

  /** Creates the store; it reaches the current transaction through {@link PgTx}. */
  public JooqInstanceRepository() {}

  @Override
  public Optional<dev.bothy.instance.InstanceRecord> load() {
    return PgTx.dsl()
        .selectFrom(INSTANCE)
        .where(INSTANCE.ID.eq(ROW_ID))
        .fetchOptional()
        .map(JooqInstanceRepository::toRecord);
  }

  @Override
  public void insertIfMissing(
      UUID instanceId, UUID syncEpoch, long schemaVersion, String minServerVersion) {
    PgTx.dsl()
        .insertInto(INSTANCE)
        .set(INSTANCE.ID, ROW_ID)
        .set(INSTANCE.INSTANCE_ID, instanceId)
        .set(INSTANCE.SYNC_EPOCH, syncEpoch)
        .set(INSTANCE.SCHEMA_VERSION, schemaVersion)
        .set(INSTANCE.MIN_SERVER_VERSION, minServerVersion)
        .onConflict(INSTANCE.ID)
        .doNothing()
        .execute();
  }

  @Override
  public void updateVersions(long schemaVersion, String minServerVersion) {
    PgTx.dsl()
        .update(INSTANCE)
        .set(INSTANCE.SCHEMA_VERSION, schemaVersion)
        .set(INSTANCE.MIN_SERVER_VERSION, minServerVersion)
        .where(INSTANCE.ID.eq(ROW_ID))
        .execute();
  }

  private static dev.bothy.instance.InstanceRecord toRecord(InstanceRecord row) {
    return new dev.bothy.instance.InstanceRecord(
        row.getInstanceId(),
        Optional.ofNullable(row.getSetupCompletedAt()).map(t -> t.toInstant()),
        row.getSchemaVersion(),
        row.getMinServerVersion(),
        row.getSyncEpoch(),
        row.getCreatedAt().toInstant());
  }
}
