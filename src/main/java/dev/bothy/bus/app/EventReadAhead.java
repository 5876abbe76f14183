package dev.bothy.bus.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The event reads of the log transport's {@code bus.dispatch} jobs (D-BD-12): a job that does not
 * find its event among those read lately reads it with the events after it, {@code
 * bus.dispatch.readAhead} of them in one statement, and the jobs of the next events find theirs
 * there. The jobs of a busy consumer come in log order, so one statement serves a window of jobs
 * instead of one each; every statement saved is a round trip of a job worker and a statement of the
 * database.
 *
 * <p>A miss inside a range whose read is running waits for that read instead of reading the same
 * rows again; when the read fails, or its event left meanwhile, the waiter reads its own event
 * alone. At most four windows of events are kept, the earliest read leaving first, and each for at
 * most {@code bus.dispatch.readAheadKeep} after its read: past it the job reads again, so an event
 * that retention removed is not served from memory later than that.
 *
 * <p>A read joins the calling thread's unit of work, as {@link EventLog} does. Thread-safe.
 */
final class EventReadAhead {
  private final EventLog log;
  private final int window;
  private final int capacity;
  private final long keepNanos;
  private final LongSupplier nanoTime;

  /** An event kept and when it was read; compared by identity, so a stale place never matches. */
  private static final class Kept {
    private final Event event;
    private final long readAt;

    Kept(Event event, long readAt) {
      this.event = event;
      this.readAt = readAt;
    }

    Event event() {
      return event;
    }

    long readAt() {
      return readAt;
    }
  }

  private final Map<Long, Kept> kept = new ConcurrentHashMap<>();
  // The entries in the order they were kept, so eviction drops the earliest read, not the lowest
  // number: a job that reads an old window (a retry, a replay) must find it there afterwards. An
  // entry read again is queued again; its earlier place no longer matches and is skipped.
  private final ConcurrentLinkedQueue<Kept> keptOrder = new ConcurrentLinkedQueue<>();
  private final AtomicInteger keptCount = new AtomicInteger();
  private final AtomicInteger orderCount = new AtomicInteger();

  /** A read in progress: the numbers it covers, first to last, and its end. */
  private record Reading(long first, long last, CompletableFuture<Void> done) {}

  // By first number; registered and looked up under its own lock, so two misses in one range never
  // both read it.
  private final ConcurrentSkipListMap<Long, Reading> reading = new ConcurrentSkipListMap<>();
  private final AtomicInteger waiting = new AtomicInteger();

  /**
   * Creates the read-ahead.
   *
   * @param log the event log
   * @param window {@code bus.dispatch.readAhead}: the events one read asks for, at least 1
   * @param keep {@code bus.dispatch.readAheadKeep}: how long an event read is served from memory
   * @param nanoTime the monotonic clock of {@code keep}
   */
  EventReadAhead(EventLog log, int window, Duration keep, LongSupplier nanoTime) {
    this.log = Objects.requireNonNull(log, "log");
    if (window < 1) {
      throw new IllegalArgumentException("bus.dispatch.readAhead must be at least 1");
    }
    this.window = window;
    this.capacity = window * 4;
    Objects.requireNonNull(keep, "keep");
    if (keep.isNegative() || keep.isZero()) {
      throw new IllegalArgumentException("bus.dispatch.readAheadKeep must be positive");
    }
    this.keepNanos = keep.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Returns the event with a number and id, reading it (and the window after it) when it is not
   * kept.
   *
   * @param seq the event's number
   * @param id the event's id
   * @return the event, or empty when the log does not hold an event with both (removed by
   *     retention)
   * @throws RuntimeException the read's own failure (the database away)
   */
  Optional<Event> read(long seq, UUID id) {
    Event event = fresh(seq);
    if (event == null) {
      event = readMissing(seq);
    }
    return event != null && event.id().equals(id) ? Optional.of(event) : Optional.empty();
  }

  private Event fresh(long seq) {
    Kept k = kept.get(seq);
    if (k == null) {
      return null;
    }
    if (nanoTime.getAsLong() - k.readAt() > keepNanos) {
      return null;
    }
    return k.event();
  }

  private Event readMissing(long seq) {
    Reading running;
    Reading mine = null;
    synchronized (reading) {
      Event found = fresh(seq);
      if (found != null) {
        return found;
      }
      Map.Entry<Long, Reading> below = reading.floorEntry(seq);
      running = below != null && below.getValue().last() >= seq ? below.getValue() : null;
      if (running == null) {
        // Up to the next range being read, so no row is read twice at once.
        Long next = reading.higherKey(seq);
        long limit = next == null ? window : Math.min(window, next - seq);
        mine = new Reading(seq, seq + limit - 1, new CompletableFuture<>());
        reading.put(seq, mine);
      }
    }
    if (mine == null) {
      if (awaitRead(running)) {
        Event event = fresh(seq);
        if (event != null) {
          return event;
        }
      }
      // The range's read failed, or its event left meanwhile: read it alone.
      List<Event> own = readAfter(seq - 1, 1);
      return own.isEmpty() || own.get(0).seq() != seq ? null : own.get(0);
    }
    boolean done = false;
    try {
      List<Event> read = readAfter(seq - 1, (int) (mine.last() - seq + 1));
      keep(read);
      done = true;
      // From the read itself: the answer does not depend on what eviction left.
      return read.isEmpty() || read.get(0).seq() != seq ? null : read.get(0);
    } finally {
      synchronized (reading) {
        reading.remove(seq, mine);
      }
      // Whatever ended the read, its waiters go on: on a failure each reads its own event.
      if (done) {
        mine.done().complete(null);
      } else {
        mine.done().completeExceptionally(new IllegalStateException("the shared read failed"));
      }
    }
  }

  private boolean awaitRead(Reading running) {
    waiting.incrementAndGet();
    try {
      running.done().get();
      return true;
    } catch (ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BothyException.unavailable("interrupted while waiting for an event read", e);
    } finally {
      waiting.decrementAndGet();
    }
  }

  private List<Event> readAfter(long afterSeq, int limit) {
    ReadResult result = log.readAfter(afterSeq, limit);
    return result instanceof ReadResult.Page page ? page.events() : List.of();
  }

  private void keep(List<Event> events) {
    long now = nanoTime.getAsLong();
    for (Event event : events) {
      Kept entry = new Kept(event, now);
      if (kept.put(event.seq(), entry) == null) {
        keptCount.incrementAndGet();
      }
      keptOrder.add(entry);
      orderCount.incrementAndGet();
    }
    // Also bounds the queue, which holds the earlier places of entries read again.
    while (keptCount.get() > capacity || orderCount.get() > 2 * capacity) {
      Kept oldest = keptOrder.poll();
      if (oldest == null) {
        break;
      }
      orderCount.decrementAndGet();
      if (kept.remove(oldest.event().seq(), oldest)) {
        keptCount.decrementAndGet();
      }
    }
  }

  /** For tests: the threads waiting for a range's read. */
  int waiting() {
    return waiting.get();
  }

  /** For tests: the events kept. */
  int cached() {
    return keptCount.get();
  }
}
