package dev.bothy.sync.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.ReadResult;
import dev.bothy.sync.TailSignal;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LogTail}: one thread reads the log after the last number it delivered, on every {@link
 * #poke()} (a notification, a reconnect of the LISTEN connection) and every {@code
 * sync.tailPollInterval}, checks that the numbers follow without a hole, and offers each event to
 * every subscriber's bounded buffer ({@code sync.tailSubscriberBuffer}).
 *
 * <p>A hole that retention does not explain is a bug (numbers are gapless by construction): the
 * tail hands it to {@code onFailure}, which ends the process, instead of skipping it. If the tail
 * itself falls below the retention window, every subscriber gets a {@link TailSignal.Resync}. The
 * thread is a {@link ServiceLoop}: a failed read warns once and is retried at the next poke or
 * poll, and any other end of the thread goes to {@code onFailure} too.
 */
public final class TailService implements LogTail {
  private static final Logger LOG = LoggerFactory.getLogger(TailService.class);

  private final EventLog log;
  private final int batchSize;
  private final int subscriberBuffer;
  private final Duration pollInterval;
  private final Consumer<Throwable> onFailure;
  private final List<Sub> subscribers = new CopyOnWriteArrayList<>();
  private final Object deliveryLock = new Object();
  private final ServiceLoop loop;
  private long delivered;

  /**
   * Creates the tail.
   *
   * @param log the log to read
   * @param batchSize {@code sync.tailBatchSize}: events per read
   * @param subscriberBuffer {@code sync.tailSubscriberBuffer}: events a subscriber may lag
   * @param pollInterval {@code sync.tailPollInterval}: the read interval without a notification
   * @param onFailure ends the process on a hole or an unexpected end of the thread ({@code
   *     Lifecycle.fail})
   */
  public TailService(
      EventLog log,
      int batchSize,
      int subscriberBuffer,
      Duration pollInterval,
      Consumer<Throwable> onFailure) {
    this.log = Objects.requireNonNull(log, "log");
    this.batchSize = batchSize;
    this.subscriberBuffer = subscriberBuffer;
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
    this.loop =
        ServiceLoop.named("bothy-tail")
            // Polls are never a trace; work found gets a root span (TraceContext).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(pollInterval)
            .log(LoopLog.of(LOG, "log tail read", ""))
            // A hole is a bug to end the process on, not a read to try again.
            .retries(e -> e instanceof Exception && !(e instanceof GapException))
            .onFatal(onFailure)
            .build(
                () -> {
                  catchUp();
                  return Next.WAIT;
                });
  }

  /** Starts the tail at the current head of the log. */
  public void start() {
    synchronized (deliveryLock) {
      delivered = log.head();
    }
    loop.start();
    LOG.info("log tail started: after_seq={}", delivered);
  }

  /** Asks the tail to read now; cheap, and extra pokes coalesce. */
  public void poke() {
    loop.wake();
  }

  /**
   * Stops the tail thread, letting a running read end within a little more than the poll interval,
   * and ends every subscription with a resync.
   */
  public void stop() {
    loop.stop(pollInterval.plusSeconds(5));
    for (Sub sub : subscribers) {
      sub.drop(0);
    }
  }

  /**
   * Returns the last number the tail delivered.
   *
   * @return the number
   */
  public long delivered() {
    synchronized (deliveryLock) {
      return delivered;
    }
  }

  /** Reads and delivers everything after {@link #delivered}, page by page. */
  void catchUp() {
    while (true) {
      long from = delivered();
      ReadResult result = log.readAfter(from, batchSize);
      if (result instanceof ReadResult.ResyncRequired resync) {
        LOG.error(
            "log tail fell below the retention window: after_seq={} min_retained_seq={}",
            from,
            resync.minRetainedSeq());
        synchronized (deliveryLock) {
          delivered = resync.minRetainedSeq() - 1;
          for (Sub sub : subscribers) {
            sub.drop(resync.minRetainedSeq());
          }
        }
        continue;
      }
      List<Event> events = ((ReadResult.Page) result).events();
      long expected = from + 1;
      for (Event e : events) {
        if (e.seq() != expected) {
          throw new GapException(expected, e.seq());
        }
        expected++;
      }
      synchronized (deliveryLock) {
        // Subscriber by subscriber, the whole page each: a stream's writer wakes once per page
        // and sends it with one flush, instead of waking (and flushing) once per event.
        for (Sub sub : subscribers) {
          for (Event e : events) {
            sub.offer(e);
          }
        }
        if (!events.isEmpty()) {
          delivered = events.get(events.size() - 1).seq();
        }
      }
      if (events.size() < batchSize) {
        return;
      }
    }
  }

  @Override
  public Subscription subscribe(long afterSeq) {
    if (afterSeq < 0) {
      throw BothyException.invalid("subscribe after a negative number: " + afterSeq);
    }
    synchronized (deliveryLock) {
      Sub sub = new Sub(afterSeq, delivered);
      subscribers.add(sub);
      return sub;
    }
  }

  /** A hole in the numbers that retention does not explain. */
  static final class GapException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    GapException(long expected, long found) {
      super(
          "event log gap: the tail expected seq "
              + expected
              + " and read "
              + found
              + "; numbers are gapless by construction, so this is a bug");
    }
  }

  /** One subscription: its backlog is read from the log, then live events from its buffer. */
  private final class Sub implements Subscription {
    private final BlockingQueue<TailSignal> live = new ArrayBlockingQueue<>(subscriberBuffer + 1);
    private final ArrayDeque<Event> backlog = new ArrayDeque<>();
    private final long liveStart;
    private volatile long position;
    private volatile boolean dropped;

    Sub(long afterSeq, long liveStart) {
      this.position = afterSeq;
      this.liveStart = liveStart;
    }

    /** Called by the tail under the delivery lock. */
    void offer(Event e) {
      if (dropped || e.seq() <= liveStart) {
        return;
      }
      if (live.size() >= subscriberBuffer) {
        drop(0);
        return;
      }
      live.add(new TailSignal.Delivered(e));
    }

    void drop(long minRetained) {
      if (dropped) {
        return;
      }
      dropped = true;
      subscribers.remove(this);
      live.clear();
      live.add(new TailSignal.Resync(position, minRetained));
    }

    @Override
    public Optional<TailSignal> poll(Duration timeout) throws InterruptedException {
      if (!dropped && position < liveStart) {
        if (backlog.isEmpty()) {
          ReadResult r = log.readAfter(position, Math.min(batchSize, (int) (liveStart - position)));
          if (r instanceof ReadResult.ResyncRequired resync) {
            drop(resync.minRetainedSeq());
          } else {
            backlog.addAll(((ReadResult.Page) r).events());
          }
        }
        Event next = backlog.poll();
        if (next != null) {
          if (next.seq() != position + 1) {
            // The backlog has a hole retention does not explain: the same bug as in the tail.
            GapException gap = new GapException(position + 1, next.seq());
            drop(0);
            onFailure.accept(gap);
            return Optional.of(live.poll());
          }
          position = next.seq();
          return Optional.of(new TailSignal.Delivered(next));
        }
      }
      while (true) {
        TailSignal signal = live.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (signal == null) {
          return Optional.empty();
        }
        if (signal instanceof TailSignal.Delivered d) {
          if (d.event().seq() <= position) {
            continue;
          }
          position = d.event().seq();
        }
        return Optional.of(signal);
      }
    }

    @Override
    public void close() {
      dropped = true;
      subscribers.remove(this);
    }
  }
}
