package dev.bothy.platform.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * What {@link JobInserter#insertTx} did, in the order of the inserts.
 *
 * @param ids the new job's id per insert, or empty where a job with the same kind and unique key
 *     already existed and the insert was skipped
 */
public record InsertResult(List<Optional<UUID>> ids) {
  /** Copies the list. */
  public InsertResult {
    ids = List.copyOf(Objects.requireNonNull(ids, "ids"));
  }

  /**
   * The positions of the skipped inserts.
   *
   * @return indexes into the inserts, ascending
   */
  public List<Integer> skipped() {
    List<Integer> skipped = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      if (ids.get(i).isEmpty()) {
        skipped.add(i);
      }
    }
    return skipped;
  }

  /**
   * How many jobs were inserted.
   *
   * @return the count of inserts that were not skipped
   */
  public int inserted() {
    return ids.size() - skipped().size();
  }
}
