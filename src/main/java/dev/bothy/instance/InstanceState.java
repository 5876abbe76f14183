package dev.bothy.instance;

/**
 * Reads and records the {@link InstanceRecord}.
 *
 * <p>Both methods join the calling thread's unit of work when there is one, and run their own
 * otherwise.
 */
public interface InstanceState {

  /**
   * Loads the record.
   *
   * @return the record
   * @throws dev.bothy.kernel.BothyException {@code not_found} when the row is missing (the database
   *     was never migrated by {@code db migrate})
   */
  InstanceRecord load();

  /**
   * Records a migration: creates the row on first use (new UUIDv7 {@code instance_id} and {@code
   * sync_epoch}) and sets the two versions. Never changes {@code instance_id}, {@code sync_epoch},
   * {@code setup_completed_at} or {@code created_at}. Safe when several {@code db migrate} runs
   * race.
   *
   * @param schemaVersion the schema version the database now has, at least 1
   * @param minServerVersion the oldest server version allowed to run against it (SemVer)
   * @return the record after the write
   * @throws dev.bothy.kernel.BothyException {@code invalid} for a version that is not SemVer or a
   *     schema version below 1
   */
  InstanceRecord recordMigration(long schemaVersion, String minServerVersion);
}
