package dev.bothy.instance;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The record of this installation, one row written by {@code db migrate}.
 *
 * @param instanceId the installation's identity (UUIDv7), never changes
 * @param setupCompletedAt when the setup finished, empty while it has not
 * @param schemaVersion the schema version the last {@code db migrate} recorded
 * @param minServerVersion the oldest server version allowed to run against the schema
 * @param syncEpoch the identity of the event log's history (UUIDv7); a restore gives a new one
 * @param createdAt when the row was created
 */
public record InstanceRecord(
    UUID instanceId,
    Optional<Instant> setupCompletedAt,
    long schemaVersion,
    String minServerVersion,
    UUID syncEpoch,
    Instant createdAt) {

  /** Checks that no component is null. */
  public InstanceRecord {
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(setupCompletedAt, "setupCompletedAt");
    Objects.requireNonNull(minServerVersion, "minServerVersion");
    Objects.requireNonNull(syncEpoch, "syncEpoch");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /**
   * Tells whether the setup of this installation finished.
   *
   * @return true once {@code setup_completed_at} is set
   */
  public boolean setupCompleted() {
    return setupCompletedAt.isPresent();
  }
}
