package dev.bothy.kernel.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A group commit: items of many callers share one unit of work, run by one thread of its own, and
 * no caller holds a thread while it waits (ADR 0031). {@link #submit} queues the item and returns a
 * future; the group's thread runs one unit for everything queued, completes the futures of the
 * items it committed, and runs the next unit for what queued meanwhile. A busy caller population
 * thus runs one unit per batch instead of one per item; a lone caller gets a batch of one.
 *
 * <p>Promises each item what a unit of its own would: its future completes with the item's result
 * once its unit committed, or exceptionally with what the unit threw for it, and then nothing of
 * the item is committed. A batch whose unit throws a {@link RuntimeException} is run again one item
 * per unit, so one bad item fails alone; an {@link Error} is not retried and fails every item of
 * its batch (the same instance), and the group goes on with the next batch. At most one unit of a
 * group commit runs at a time.
 *
 * <p>The futures complete on the group's thread, so what a caller chains to them without an
 * executor runs there, before the next unit: it must be short and must not block (a network send
 * handed to a client is fine, a unit of work is not). The thread, named as the group, starts with
 * the first item and ends after a minute without one.
 *
 * <pre>{@code
 * GroupCommit<Attempt, Boolean> recorded =
 *     new GroupCommit<>("bothy-webhooks-record", unitOfWork, this::writeAll);
 * recorded.submit(attempt).thenAccept(written -> ...); // after the attempt's unit committed
 * }</pre>
 *
 * @param <I> the item a caller brings
 * @param <O> the result each item gets
 */
public final class GroupCommit<I, O> {
  // An idle group gives its thread back after this long; the next item starts another.
  private static final long IDLE_SECONDS = 60;

  private final UnitOfWork unitOfWork;
  private final Function<List<I>, List<O>> work;
  private final ConcurrentLinkedQueue<Pending<I, O>> queue = new ConcurrentLinkedQueue<>();
  // Whether a drain is scheduled or runs; the one who sets it hands the drain to the thread.
  private final AtomicBoolean draining = new AtomicBoolean();
  private final ThreadPoolExecutor thread;

  private record Pending<I, O>(I item, CompletableFuture<O> outcome) {}

  /**
   * Creates a group commit.
   *
   * @param name the name of its thread, {@code bothy-<module>-<what>}
   * @param unitOfWork runs each batch in its own unit
   * @param work the work of one batch, in its unit: one result per item, in the items' order; may
   *     run more than once for the same items (a retried unit, or the items one by one after the
   *     batch failed)
   */
  public GroupCommit(String name, UnitOfWork unitOfWork, Function<List<I>, List<O>> work) {
    Objects.requireNonNull(name, "name");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.work = Objects.requireNonNull(work, "work");
    this.thread =
        new ThreadPoolExecutor(
            1,
            1,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    thread.allowCoreThreadTimeOut(true);
  }

  /**
   * Queues the item for the next unit and returns at once. Outside any unit of work (the item is
   * written in a unit of the group's own, never in the caller's).
   *
   * @param item the caller's item
   * @return completes with the item's result once its unit committed; exceptionally with what the
   *     unit threw for this item (an {@code IllegalStateException} when the work returned a result
   *     list of the wrong size), and then nothing of the item is committed
   */
  public CompletableFuture<O> submit(I item) {
    CompletableFuture<O> outcome = new CompletableFuture<>();
    queue.add(new Pending<>(item, outcome));
    if (draining.compareAndSet(false, true)) {
      thread.execute(this::drain);
    }
    return outcome;
  }

  /**
   * Submits the item and waits for its outcome: for callers that hold a thread anyway.
   *
   * @param item the caller's item
   * @return the item's result from the unit that committed it
   * @throws RuntimeException what the unit threw for this item; nothing of it is committed
   * @throws Error what the unit of the item's batch threw
   */
  public O await(I item) {
    try {
      return submit(item).join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error x) {
        throw x;
      }
      throw e;
    }
  }

  /**
   * How many items wait for a unit; for tests.
   *
   * @return the queued items, not counting those of the unit that runs
   */
  public int queued() {
    return queue.size();
  }

  /**
   * Runs units until nothing is queued; a submit that finds no drain running starts one. Whatever
   * ends a drain, an item queued meanwhile gets the next one.
   */
  private void drain() {
    try {
      for (List<Pending<I, O>> batch = poll(); !batch.isEmpty(); batch = poll()) {
        run(batch);
      }
    } finally {
      draining.set(false);
      // An item queued after the last poll but before the flag fell found a drain running and
      // left it to this one.
      if (!queue.isEmpty() && draining.compareAndSet(false, true)) {
        thread.execute(this::drain);
      }
    }
  }

  private List<Pending<I, O>> poll() {
    List<Pending<I, O>> batch = new ArrayList<>();
    for (Pending<I, O> p = queue.poll(); p != null; p = queue.poll()) {
      try {
        batch.add(p);
      } catch (Error e) { // NOPMD: out of memory growing the batch; every item in hand learns it
        p.outcome().completeExceptionally(e);
        failAll(batch, e);
        throw e;
      }
    }
    return batch;
  }

  /** Runs the batch and completes each item's future; a failed batch goes again item by item. */
  private void run(List<Pending<I, O>> batch) {
    List<O> out;
    try {
      out = runUnit(batch);
    } catch (RuntimeException batchFailed) {
      if (batch.size() == 1) {
        batch.get(0).outcome().completeExceptionally(batchFailed);
        return;
      }
      for (Pending<I, O> p : batch) {
        try {
          O one = runUnit(List.of(p)).get(0);
          p.outcome().complete(one);
        } catch (RuntimeException failed) {
          p.outcome().completeExceptionally(failed);
        } catch (Error e) { // NOPMD: every item still waiting learns of it
          failAll(batch, e);
          return;
        }
      }
      return;
    } catch (Error e) { // NOPMD: every item of the batch learns of it; the group goes on
      failAll(batch, e);
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).outcome().complete(out.get(i));
    }
  }

  private static <I, O> void failAll(List<Pending<I, O>> batch, Error e) {
    for (Pending<I, O> p : batch) {
      p.outcome().completeExceptionally(e);
    }
  }

  /** One unit for the batch; a result list of the wrong size rolls it back. */
  private List<O> runUnit(List<Pending<I, O>> batch) {
    List<I> items = new ArrayList<>(batch.size());
    for (Pending<I, O> p : batch) {
      items.add(p.item());
    }
    return unitOfWork.run(
        () -> {
          List<O> out = work.apply(items);
          if (out.size() != items.size()) {
            throw new IllegalStateException(
                "the group commit's work returned "
                    + out.size()
                    + " results for "
                    + items.size()
                    + " items");
          }
          return out;
        });
  }
}
