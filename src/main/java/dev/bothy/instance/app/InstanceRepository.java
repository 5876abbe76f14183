package dev.bothy.instance.app;

import dev.bothy.instance.InstanceRecord;
import java.util.Optional;
import java.util.UUID;

/** The storage of the instance record; called inside a unit of work only. */
public interface InstanceRepository {

  /**
   * Reads the row.
   *
   * @return the record, or empty when the row is missing
   */
  Optional<InstanceRecord> load();

  /**
   * Creates the row unless it exists ({@code ON CONFLICT DO NOTHING}, so racing migrations are
   * safe).
   *
   * @param instanceId the new installation id
   * @param syncEpoch the new sync epoch
   * @param schemaVersion the schema version
   * @param minServerVersion the minimum server version
   */
  void insertIfMissing(
      UUID instanceId, UUID syncEpoch, long schemaVersion, String minServerVersion);

  /**
   * Sets the two versions of the existing row.
   *
   * @param schemaVersion the schema version
   * @param minServerVersion the minimum server version
   */
  void updateVersions(long schemaVersion, String minServerVersion);
}
