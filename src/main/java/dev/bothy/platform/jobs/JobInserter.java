package dev.bothy.platform.jobs;

import java.util.List;

/**
 * Inserts jobs inside the caller's unit of work: they are not worked before it commits and are gone
 * if it rolls back. Available in every role (the {@code api} role inserts only).
 */
public interface JobInserter {
  /**
   * Inserts one job per args record, with the kinds' defaults.
   *
   * @param args args records of registered kinds
   * @return the ids, in order
   * @throws dev.bothy.kernel.BothyException {@code invalid} outside a unit of work or for an args
   *     type no kind registered
   */
  InsertResult insertTx(Record... args);

  /**
   * Inserts jobs with options in one statement; inserts whose kind and unique key match an existing
   * job (or an earlier insert of the same call) are skipped and reported.
   *
   * @param inserts the jobs
   * @return the ids, in order, empty where skipped
   * @throws dev.bothy.kernel.BothyException {@code invalid} outside a unit of work or for an args
   *     type no kind registered
   */
  InsertResult insertTx(List<JobInsert> inserts);
}
