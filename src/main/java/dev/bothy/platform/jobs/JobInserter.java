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

  /**
   * Queues jobs in the current unit of work; they are written with one statement for the whole unit
   * by the phase hook {@code jobs.insert} before the unit commits (in the {@code sync} phase, ahead
   * of the event log's hook). For callers that insert a few jobs many times in one unit, such as a
   * consumer round per event, and need no answer: a duplicate unique key is skipped silently.
   * Checks happen now, so a bad insert fails where it is made.
   *
   * <p>Example: {@code inserter.insertLater(List.of(JobInsert.of(new DeliverArgs(id, seq))));}
   *
   * @param inserts the jobs
   * @throws dev.bothy.kernel.BothyException {@code invalid} outside a unit of work, outside its
   *     {@code work} phase, or for an args type no kind registered
   */
  void insertLater(List<JobInsert> inserts);
}
