package dev.bothy.platform.lifecycle;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background loop on one named daemon thread: it runs an {@link Iteration} again and again,
 * waiting between iterations for a {@link #wake()} or its interval, until {@link #stop(Duration)}.
 * Every background loop of Bothy (job fetchers, completer and maintenance, consumers, the tail,
 * LISTEN connections) is one, so each gets the same rules:
 *
 * <ul>
 *   <li><b>Wakes coalesce.</b> A wake is a flag, not a queue: any number of wakes while an
 *       iteration runs, or before the loop waits, give one more iteration.
 *   <li><b>Time comes from a {@link Clock}.</b> Waits end when the clock has passed their end; the
 *       thread blocks through a {@link Pause}. Tests drive both.
 *   <li><b>An outage gives two lines.</b> An iteration that throws is a failed iteration: the loop
 *       waits its retry delay and tries again. The {@link LoopLog} hears of the first failure of a
 *       run and of the first success after it, nothing in between.
 *   <li><b>An unexpected end is fatal.</b> Whatever ends the thread outside a stop (an {@link
 *       Error}, an exception the retry rule refuses, an interrupt) goes to the loop's log and then
 *       to its fatal handler, {@code Lifecycle.fail} in production: the process exits with 1
 *       instead of running on without the loop.
 *   <li><b>A stop has a budget.</b> The stop asks the loop to end, waits at most the budget for the
 *       running iteration, then interrupts the thread and abandons it. What an iteration throws
 *       after the stop was asked is not reported.
 * </ul>
 *
 * <pre>{@code
 * ServiceLoop tail = ServiceLoop.named("bothy-tail")
 *     .every(pollInterval)
 *     .log(LoopLog.of(LOG, "log tail read", ""))
 *     .onFatal(lifecycle::fail)
 *     .build(() -> { catchUp(); return Next.WAIT; });
 * tail.start();
 * tail.wake();                     // from a notification
 * tail.stop(Duration.ofSeconds(5));
 * }</pre>
 */
public final class ServiceLoop {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceLoop.class);

  /** What the loop does after an iteration that returned. */
  public enum Next {
    /** Run the next iteration at once: there is more to do (a full batch). */
    AGAIN,
    /** Wait for a wake or the interval. */
    WAIT
  }

  /** One pass of a loop. */
  @FunctionalInterface
  public interface Iteration {
    /**
     * Runs one pass.
     *
     * @return whether to run again at once or wait
     * @throws Exception a failed pass, retried after the retry delay when the retry rule accepts
     *     it; an {@link InterruptedException} outside a stop ends the loop
     */
    Next run() throws Exception;
  }

  /**
   * What every iteration runs inside, such as a context that keeps its statements out of the
   * recorded traces ({@code TraceContext.untracedCall}); the default runs the iteration as it is.
   */
  @FunctionalInterface
  public interface Around {
    /**
     * Runs one iteration inside the context.
     *
     * @param iteration the iteration
     * @return what the iteration returned
     * @throws Exception what the iteration threw
     */
    Next run(Iteration iteration) throws Exception;
  }

  private final String name;
  private final Iteration iteration;
  private final Duration interval;
  private final IntFunction<Duration> retryDelay;
  private final Predicate<Throwable> retries;
  private final boolean wakesCutRetries;
  private final LoopLog log;
  private final Consumer<Throwable> onFatal;
  private final Runnable onStop;
  private final Around around;
  private final Clock clock;
  private final Pause pause;
  private final Object monitor = new Object();
  private volatile boolean stopping;
  // Guarded by monitor.
  private boolean woken;
  private boolean started;
  private boolean ended;
  private Thread thread;

  ServiceLoop(ServiceLoopBuilder b, Iteration iteration) {
    this.name = b.name;
    this.iteration = Objects.requireNonNull(iteration, "iteration");
    this.interval = Objects.requireNonNull(b.interval, "every: the loop needs an interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the interval of loop " + name + " must be positive");
    }
    this.onFatal = Objects.requireNonNull(b.onFatal, "onFatal: the loop needs a fatal handler");
    this.retryDelay = b.retryDelay != null ? b.retryDelay : failures -> interval;
    this.retries = b.retries;
    this.wakesCutRetries = b.wakesCutRetries;
    this.log = b.log != null ? b.log : LoopLog.of(LOG, "loop", "loop=" + name);
    this.onStop = b.onStop;
    this.around = b.around;
    this.clock = b.clock;
    this.pause = b.pause;
  }

  /**
   * Starts describing a loop.
   *
   * @param name the thread's name, such as {@code bothy-tail}; also what the default log names
   * @return a builder; {@link ServiceLoopBuilder#every} and {@link ServiceLoopBuilder#onFatal} are
   *     required
   */
  public static ServiceLoopBuilder named(String name) {
    return new ServiceLoopBuilder(name);
  }

  /**
   * Returns the loop's name, which is its thread's name.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Starts the thread; its first iteration runs at once.
   *
   * @throws IllegalStateException when started twice or after a stop
   */
  public void start() {
    synchronized (monitor) {
      if (started) {
        throw new IllegalStateException("the loop " + name + " is already started");
      }
      if (stopping) {
        throw new IllegalStateException("the loop " + name + " is stopped");
      }
      started = true;
      thread = new Thread(this::run, name);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /**
   * Asks for an iteration soon: ends the current wait, or when an iteration runs, makes the next
   * wait end at once. Cheap and safe from any thread; wakes coalesce. After a failed iteration the
   * retry wait ends too, unless the builder said {@link Builder#retriesIgnoreWakes()}.
   */
  public void wake() {
    synchronized (monitor) {
      woken = true;
      monitor.notifyAll();
    }
  }

  /**
   * Stops the loop: no iteration starts after the call, the running one may finish within {@code
   * budget} (counted on the loop's clock), and past it the thread is interrupted and abandoned. A
   * second call waits again for the end. A loop never started just stays unstarted.
   *
   * @param budget how long the running iteration may take
   * @return true when the thread ended within the budget
   */
  public boolean stop(Duration budget) {
    return stopAll(List.of(this), budget);
  }

  /**
   * Stops several loops together: all are asked to stop first, then each may finish its iteration
   * within the one budget, counted from the call; those still running after it are interrupted.
   *
   * @param loops the loops
   * @param budget how long their running iterations may take
   * @return true when every thread ended within the budget
   */
  public static boolean stopAll(Collection<ServiceLoop> loops, Duration budget) {
    Objects.requireNonNull(budget, "budget");
    List<ServiceLoop> all = List.copyOf(loops);
    List<Instant> deadlines = new ArrayList<>();
    for (ServiceLoop loop : all) {
      deadlines.add(loop.clock.now().plus(budget));
      loop.requestStop();
    }
    boolean endedInTime = true;
    try {
      for (int i = 0; i < all.size(); i++) {
        endedInTime &= all.get(i).awaitEnd(deadlines.get(i));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      endedInTime = false;
    }
    if (!endedInTime) {
      all.forEach(ServiceLoop::interruptIfRunning);
    }
    return endedInTime;
  }

  private void requestStop() {
    synchronized (monitor) {
      if (stopping) {
        return;
      }
      stopping = true;
      monitor.notifyAll();
    }
    try {
      onStop.run();
    } catch (RuntimeException e) {
      LOG.warn(
          "loop stop hook failed: loop={} error.type={} sqlstate={}",
          name,
          ErrorFields.type(e),
          ErrorFields.sqlState(e));
    }
  }

  private boolean awaitEnd(Instant deadline) throws InterruptedException {
    synchronized (monitor) {
      if (thread == null) {
        return true;
      }
      while (!ended) {
        Duration left = Duration.between(clock.now(), deadline);
        if (left.isNegative() || left.isZero()) {
          return false;
        }
        pause.await(monitor, left);
      }
      return true;
    }
  }

  private void interruptIfRunning() {
    synchronized (monitor) {
      if (thread != null && !ended) {
        thread.interrupt();
      }
    }
  }

  private void run() {
    Throwable end = null;
    try {
      iterate();
    } catch (Throwable e) { // NOPMD: whatever ends the thread is reported below
      end = e;
    } finally {
      synchronized (monitor) {
        ended = true;
        monitor.notifyAll();
      }
    }
    if (stopping) {
      return;
    }
    Throwable cause =
        end != null ? end : new IllegalStateException("the loop " + name + " ended outside a stop");
    try {
      log.ended(cause);
    } finally {
      onFatal.accept(cause);
    }
  }

  private void iterate() throws Throwable {
    int failures = 0;
    while (!stopping) {
      Next next;
      try {
        next = around.run(iteration);
      } catch (Throwable e) { // NOPMD: the retry rule decides what is a failed iteration
        if (stopping) {
          return;
        }
        if (e instanceof InterruptedException || !retries.test(e)) {
          throw e;
        }
        failures++;
        Duration retryIn = retryDelay.apply(failures);
        if (failures == 1) {
          log.failing(e, retryIn);
        }
        await(retryIn, wakesCutRetries);
        continue;
      }
      if (failures > 0) {
        failures = 0;
        log.recovered();
      }
      if (next != Next.AGAIN) {
        await(interval, true);
      }
    }
  }

  /** Waits on the clock until {@code duration} has passed, a wake (when it counts) or the stop. */
  private void await(Duration duration, boolean wakeable) throws InterruptedException {
    Instant deadline = clock.now().plus(duration);
    synchronized (monitor) {
      while (!stopping && !(wakeable && woken)) {
        if (Thread.interrupted()) {
          throw new InterruptedException("the loop " + name + " was interrupted outside a stop");
        }
        Duration left = Duration.between(clock.now(), deadline);
        if (left.isNegative() || left.isZero()) {
          break;
        }
        pause.await(monitor, left);
      }
      if (wakeable) {
        woken = false;
      }
    }
  }
}
