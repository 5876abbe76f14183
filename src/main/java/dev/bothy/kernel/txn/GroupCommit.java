package dev.bothy.kernel.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A group commit: concurrent callers' items share one unit of work. Each caller queues its item and
 * waits; when no unit of this group commit runs, the caller runs one for everything queued, and the
 * others return once their item is in a committed unit. While one unit runs, the next batch
 * gathers, so a busy caller population runs one unit per batch instead of one per item; a lone
 * caller runs a batch of one.
 *
 * <p>Promises each caller what a unit of its own would: when {@link #submit} returns, the item's
 * unit has committed and the result is the item's; when it throws, nothing of the item is
 * committed. A batch whose unit throws is run again one item per unit, so one bad item fails alone;
 * an {@link Error} is not retried and reaches every caller of its batch whose item has not
 * committed (the same instance, thrown in each of their threads).
 *
 * <p>A caller whose item another thread wrote is woken by that thread and returns: it never runs or
 * waits for a later unit (D-WB-4). The thread that ran a unit wakes the first caller still queued
 * before those it wrote for, so the next unit starts first (unless a caller that just arrived
 * starts it). At most one unit of a group commit runs at a time, and a batch is at most the number
 * of threads that call it, since each waits for its own.
 *
 * <pre>{@code
 * GroupCommit<Attempt, Boolean> recorded = new GroupCommit<>(unitOfWork, this::writeAll);
 * recorded.submit(attempt); // returns once the attempt's unit committed
 * }</pre>
 *
 * @param <I> the item a caller brings
 * @param <O> the result each item gets
 */
public final class GroupCommit<I, O> {
  private final UnitOfWork unitOfWork;
  private final Function<List<I>, List<O>> work;
  private final ConcurrentLinkedQueue<Pending<I, O>> queue = new ConcurrentLinkedQueue<>();
  // Who runs the unit; not a lock, so a caller whose item is written never queues behind it.
  private final AtomicBoolean running = new AtomicBoolean();

  /**
   * Creates a group commit.
   *
   * @param unitOfWork runs each batch in its own unit
   * @param work the work of one batch, in its unit: one result per item, in the items' order; may
   *     run more than once for the same items (a retried unit, or the items one by one after the
   *     batch failed)
   */
  public GroupCommit(UnitOfWork unitOfWork, Function<List<I>, List<O>> work) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.work = Objects.requireNonNull(work, "work");
  }

  /**
   * Runs the item's part in a unit shared with whatever other threads queued meanwhile, and returns
   * once that unit committed. Outside any unit of work.
   *
   * <p>The wait ignores interrupts and sets the thread's interrupt flag again on return: the caller
   * needs the outcome, and a unit is bounded by the database's timeouts. An interrupt that is
   * pending when this thread starts a unit is held back from it, so a caller interrupted while it
   * waited does not fail the others' items; one that arrives while the unit runs reaches that unit
   * (which fails as its unit of work says, and the items are run again one per unit as after any
   * failure).
   *
   * @param item the caller's item
   * @return the item's result from the unit that committed it
   * @throws RuntimeException what the unit threw for this item (an {@code IllegalStateException}
   *     when the work returned a result list of the wrong size); nothing of the item is committed
   * @throws Error what the unit of the item's batch threw
   */
  public O submit(I item) {
    Pending<I, O> mine = new Pending<>(item, Thread.currentThread());
    queue.add(mine);
    boolean interrupted = Thread.interrupted();
    try {
      while (!mine.done) {
        if (!running.compareAndSet(false, true)) {
          LockSupport.park(this);
          interrupted |= Thread.interrupted();
          continue;
        }
        if (mine.done) {
          // Written by the unit that just ended, which set it before it let go: the next unit is
          // the first queued caller's, woken by that unit; this one only has to return.
          running.set(false);
          wakeNext();
          break;
        }
        interrupted |= runQueued();
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return mine.outcome();
  }

  /** How many items wait for a unit; for tests. */
  public int queued() {
    return queue.size();
  }

  /**
   * Wakes the first queued caller so it runs the next unit. Any caller queued now is behind it, and
   * whoever takes the items before it is woken here ends its own unit with this call too.
   */
  private void wakeNext() {
    Pending<I, O> head = queue.peek();
    if (head != null) {
      LockSupport.unpark(head.waiter);
    }
  }

  /**
   * Runs one unit for every queued item, then lets go and wakes the next unit's caller before the
   * callers it wrote for. Returns whether an interrupt was held back from the units.
   */
  private boolean runQueued() {
    List<Pending<I, O>> batch = new ArrayList<>();
    Throwable thrown = null;
    try {
      for (Pending<I, O> p = queue.poll(); p != null; p = queue.poll()) {
        try {
          batch.add(p);
        } catch (Error e) {
          // Out of memory while growing the batch: the item in hand is in neither the queue
          // nor the batch, so it gets its outcome here.
          p.fail(e);
          p.wake();
          throw e;
        }
      }
      return run(batch);
    } catch (RuntimeException | Error e) {
      thrown = e;
      throw e;
    } finally {
      for (Pending<I, O> p : batch) {
        if (!p.done) {
          p.fail(
              thrown != null
                  ? thrown
                  : new IllegalStateException("the group commit's unit ended without an outcome"));
        }
      }
      running.set(false);
      // The next unit first: a caller that queued while this one ran found it running and waits
      // to be told; the callers whose items this unit wrote only have to return.
      wakeNext();
      for (Pending<I, O> p : batch) {
        p.wake();
      }
    }
  }

  /**
   * Runs the batch and sets each item's outcome. Returns whether an interrupt was held back: each
   * unit starts with the flag cleared, so a caller's interrupt fails no one else's item; an {@link
   * Error} leaves with the flag set again.
   */
  private boolean run(List<Pending<I, O>> batch) {
    if (batch.isEmpty()) {
      return false;
    }
    boolean interrupted = Thread.interrupted();
    try {
      try {
        List<O> out = runUnit(batch);
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).complete(out.get(i));
        }
      } catch (RuntimeException batchFailed) {
        if (batch.size() == 1) {
          batch.get(0).fail(batchFailed);
        } else {
          for (Pending<I, O> p : batch) {
            interrupted |= Thread.interrupted();
            try {
              p.complete(runUnit(List.of(p)).get(0));
            } catch (RuntimeException failed) {
              p.fail(failed);
            }
          }
        }
      }
      return interrupted | Thread.interrupted();
    } catch (Error e) {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
  }

  /** One unit for the batch; a result list of the wrong size rolls it back. */
  private List<O> runUnit(List<Pending<I, O>> batch) {
    List<I> items = new ArrayList<>(batch.size());
    for (Pending<I, O> p : batch) {
      items.add(p.item);
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

  /** One caller's item and its outcome; the outcome is published by the volatile flag. */
  private static final class Pending<I, O> {
    final I item;
    final Thread waiter;
    private O result;
    private Throwable failure;
    volatile boolean done;

    Pending(I item, Thread waiter) {
      this.item = item;
      this.waiter = waiter;
    }

    void complete(O value) {
      result = value;
      done = true;
    }

    void fail(Throwable cause) {
      failure = cause;
      done = true;
    }

    /** Wakes the caller once its outcome is set; a caller parked or about to park returns. */
    void wake() {
      // The caller that ran the unit is awake and needs no permit.
      if (waiter != Thread.currentThread()) {
        LockSupport.unpark(waiter);
      }
    }

    O outcome() {
      if (failure instanceof RuntimeException r) {
        throw r;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      if (failure != null) {
        throw new IllegalStateException(failure);
      }
      return result;
    }
  }
}
