package dev.bothy.instance.app;

import dev.bothy.instance.InstanceRecord;
import dev.bothy.instance.InstanceState;
import dev.bothy.instance.domain.SemVer;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import java.util.Objects;

/** {@link InstanceState} over the {@link InstanceRepository}. */
public final class InstanceService implements InstanceState {
  private final UnitOfWork unitOfWork;
  private final InstanceRepository repository;

  /**
   * Creates the service.
   *
   * @param unitOfWork the unit of work of the connection to use (runtime or migration)
   * @param repository the storage
   */
  public InstanceService(UnitOfWork unitOfWork, InstanceRepository repository) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.repository = Objects.requireNonNull(repository, "repository");
  }

  @Override
  public InstanceRecord load() {
    return unitOfWork.join(this::loadOrFail);
  }

  @Override
  public InstanceRecord recordMigration(long schemaVersion, String minServerVersion) {
    if (schemaVersion < 1) {
      throw BothyException.invalid("schema version must be at least 1, not " + schemaVersion);
    }
    SemVer.parse(minServerVersion);
    return unitOfWork.join(
        () -> {
          repository.insertIfMissing(Ids.newId(), Ids.newId(), schemaVersion, minServerVersion);
          repository.updateVersions(schemaVersion, minServerVersion);
          return loadOrFail();
        });
  }

  private InstanceRecord loadOrFail() {
    return repository
        .load()
        .orElseThrow(
            () ->
                BothyException.notFound(
                    "the instance record is missing: run db migrate to prepare the database"));
  }
}
