package dev.bothy.sync.app;

import dev.bothy.sync.ConsumerName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the rounds of the worker consumers: one thread per consumer, woken by the {@link Waker} (one
 * LISTEN connection per process for all of them) and every {@code consumer.pollInterval}.
 *
 * <p>After a full batch the next round starts at once (drain); after a short batch, an idle round,
 * a locked row or a failed round the consumer waits for the next wake or poll. A wake signal goes
 * to a queue of capacity one per consumer, so signals coalesce. A failed round is logged at error
 * level once ("event consumer round failed") and its recovery once ("event consumer recovered"), so
 * an outage does not flood the log. An unexpected end of a consumer thread goes to {@code onFatal}
 * (the process exits 1).
 */
public final class ConsumerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

  private final List<ConsumerName> names;
  private final Function<ConsumerName, RoundResult> rounds;
  private final Waker waker;
  private final Duration pollInterval;
  private final Consumer<Throwable> onFatal;
  private final List<Loop> loops = new ArrayList<>();
  private volatile boolean stopping;

  /**
   * Creates the runner; nothing runs until {@link #start()}.
   *
   * @param names the registered consumers
   * @param rounds runs one round of a consumer ({@link ConsumerService#round})
   * @param waker wakes the consumers on notifications
   * @param pollInterval {@code consumer.pollInterval}
   * @param onFatal called when a consumer thread ends unexpectedly
   */
  public ConsumerRunner(
      List<ConsumerName> names,
      Function<ConsumerName, RoundResult> rounds,
      Waker waker,
      Duration pollInterval,
      Consumer<Throwable> onFatal) {
    this.names = List.copyOf(names);
    this.rounds = Objects.requireNonNull(rounds, "rounds");
    this.waker = Objects.requireNonNull(waker, "waker");
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    this.onFatal = Objects.requireNonNull(onFatal, "onFatal");
  }

  /**
   * Starts one thread per consumer and the waker.
   *
   * @throws IllegalStateException when started twice
   */
  public synchronized void start() {
    if (!loops.isEmpty()) {
      throw new IllegalStateException("the consumer runner is already started");
    }
    for (ConsumerName name : names) {
      loops.add(new Loop(name));
    }
    loops.forEach(l -> l.thread.start());
    waker.start(this::wakeAll);
    LOG.info("event consumers started: consumers={}", names);
  }

  /** Wakes every consumer now, as a notification does. */
  public void wakeAll() {
    for (Loop l : loops) {
      l.wakes.offer(Boolean.TRUE);
    }
  }

  /**
   * Starts no new round and waits up to {@code budget} for the running rounds to commit or roll
   * back; past it the threads are interrupted (closing the pool then rolls back what still runs).
   *
   * @param budget how long a running round may take
   */
  public void stop(Duration budget) {
    stopping = true;
    waker.close();
    long deadline = System.nanoTime() + budget.toNanos();
    // A waiting consumer wakes and sees the stop; a running round may finish within the budget.
    for (Loop l : loops) {
      l.wakes.offer(Boolean.TRUE);
    }
    boolean finished = true;
    for (Loop l : loops) {
      try {
        l.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      finished &= !l.thread.isAlive();
    }
    if (!finished) {
      // Past the budget: interrupt the rounds still running; a round that does not commit rolls
      // back (at the latest when the pool closes), so no job is lost or doubled.
      LOG.warn(
          "event consumers stop: rounds still running past the budget are interrupted and roll"
              + " back");
      loops.forEach(l -> l.thread.interrupt());
      return;
    }
    LOG.info("event consumers stopped: consumers={}", names);
  }

  /** The thread of one consumer. */
  private final class Loop {
    final ConsumerName name;
    final BlockingQueue<Boolean> wakes = new ArrayBlockingQueue<>(1);
    final Thread thread;
    boolean failing;

    Loop(ConsumerName name) {
      this.name = name;
      this.thread = new Thread(this::guarded, "bothy-consumer-" + name.value());
      this.thread.setDaemon(true);
    }

    private void guarded() {
      try {
        run();
      } catch (RuntimeException | Error e) {
        if (!stopping) {
          LOG.error("event consumer thread ended unexpectedly: bothy.consumer.name={}", name, e);
          onFatal.accept(e);
        }
      }
    }

    private void run() {
      while (!stopping) {
        RoundResult result = null;
        try {
          result = rounds.apply(name);
          if (failing) {
            LOG.info("event consumer recovered: bothy.consumer.name={}", name);
            failing = false;
          }
        } catch (RuntimeException | Error e) {
          // A handler's Error (a stack overflow on one event) fails the round like an exception:
          // the consumer stalls and its alert reports it, the process keeps its other consumers.
          // A JVM that is out of memory or broken ends the thread and, through onFatal, the
          // process.
          if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
            throw (Error) e;
          }
          if (stopping) {
            return;
          }
          if (!failing) {
            LOG.error(
                "event consumer round failed: bothy.consumer.name={} error.type={} error={}",
                name,
                e.getClass().getName(),
                e.getMessage());
            failing = true;
          }
        }
        if (result != null && result.outcome() == RoundResult.Outcome.PROCESSED && result.full()) {
          continue;
        }
        try {
          wakes.poll(pollInterval.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
