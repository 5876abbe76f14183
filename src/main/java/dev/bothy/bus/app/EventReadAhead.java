package dev.bothy.bus.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The event reads of the log transport's {@code bus.dispatch} jobs (D-BD-12): a job that does not
 * find its event among those read lately reads it with the events after it, {@code
 * bus.dispatch.readAhead} of them in one statement, and the jobs of the next events find theirs
 * there. The jobs of a busy consumer come in log order, so one statement serves a window of jobs
 * instead of one each; every statement saved is a round trip of a job worker and a statement of the
 * database.
 *
 * <p>Misses in one window while its read runs wait for that read instead of reading the same rows
 * again; when it fails, or did not hold their event, each reads its own event alone. The events
 * kept are at most four windows, the oldest numbers leaving first; an event leaves no earlier than
 * that, so the jobs of its other handlers usually find it too.
 *
 * <p>Events never change once committed, so an event kept here is the log's; one that retention
 * removed meanwhile may still be served, as it would have been a moment earlier. A read joins the
 * calling thread's unit of work, as {@link EventLog} does. Thread-safe.
 */
final class EventReadAhead {
  private final EventLog log;
  private final int window;
  private final int capacity;
  private final ConcurrentSkipListMap<Long, Event> kept = new ConcurrentSkipListMap<>();
  private final AtomicInteger keptCount = new AtomicInteger();
  // The reads in progress by window (number - 1) / window: a miss in a window being read waits.
  private final Map<Long, CompletableFuture<Void>> reading = new ConcurrentHashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();

  /**
   * Creates the read-ahead.
   *
   * @param log the event log
   * @param window {@code bus.dispatch.readAhead}: the events one read asks for, at least 1
   */
  EventReadAhead(EventLog log, int window) {
    this.log = Objects.requireNonNull(log, "log");
    if (window < 1) {
      throw new IllegalArgumentException("bus.dispatch.readAhead must be at least 1");
    }
    this.window = window;
    this.capacity = window * 4;
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
    Event event = kept.get(seq);
    if (event == null) {
      event = readMissing(seq);
    }
    return event != null && event.id().equals(id) ? Optional.of(event) : Optional.empty();
  }

  private Event readMissing(long seq) {
    long windowIndex = (seq - 1) / window;
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> running = reading.putIfAbsent(windowIndex, mine);
    if (running == null) {
      List<Event> read;
      try {
        read = readAfter(seq - 1, window);
        keep(read);
        mine.complete(null);
      } catch (RuntimeException | Error e) {
        mine.completeExceptionally(e);
        throw e;
      } finally {
        reading.remove(windowIndex, mine);
      }
      // From the read itself: an old number may have left the kept events at once.
      return read.isEmpty() || read.get(0).seq() != seq ? null : read.get(0);
    }
    if (awaitRead(running)) {
      Event event = kept.get(seq);
      if (event != null) {
        return event;
      }
    }
    // The window's read failed or did not reach this number: read it alone, as without read-ahead.
    List<Event> own = readAfter(seq - 1, 1);
    return own.isEmpty() || own.get(0).seq() != seq ? null : own.get(0);
  }

  private boolean awaitRead(CompletableFuture<Void> running) {
    waiting.incrementAndGet();
    try {
      running.get();
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
    for (Event event : events) {
      if (kept.put(event.seq(), event) == null) {
        keptCount.incrementAndGet();
      }
    }
    while (keptCount.get() > capacity) {
      if (kept.pollFirstEntry() != null) {
        keptCount.decrementAndGet();
      } else {
        break;
      }
    }
  }

  /** For tests: the threads waiting for a window's read. */
  int waiting() {
    return waiting.get();
  }

  /** For tests: the events kept. */
  int cached() {
    return keptCount.get();
  }
}
