package dev.bothy.platform.lifecycle;

import dev.bothy.kernel.ErrorFields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of a Bothy process: named start steps run in registration order, and at shutdown
 * the stop steps run phase by phase ({@link StopPhase} order) within {@code shutdown.totalTimeout}.
 *
 * <p>Each stop step gets the smaller of its own budget and the time that remains of the total; a
 * step added with {@link #onStopWithRest} has no budget of its own and gets what remains. A step
 * that overruns is cut (its thread is interrupted and abandoned) and the next step still runs, so
 * one stuck component cannot keep the pool from closing. A step that throws is logged and the next
 * one runs.
 *
 * <p>{@link #fail(Throwable)} is for a component that dies unexpectedly at run time (a runner
 * thread, the tail): it logs once and ends the process with exit code 1, so the supervisor restarts
 * it instead of leaving a half-working process.
 *
 * <pre>{@code
 * lifecycle.onStart("pool", pool::start);
 * lifecycle.onStop(StopPhase.POOL, "pool", Duration.ofSeconds(5), pool::close);
 * }</pre>
 */
public final class Lifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

  /** A start step. */
  @FunctionalInterface
  public interface Step {
    /**
     * Runs the step.
     *
     * @throws Exception any failure; at start it fails the start, at stop it is logged
     */
    void run() throws Exception;
  }

  /** A stop step that is told its budget, so it can end what it waits for when the budget ends. */
  @FunctionalInterface
  public interface BudgetedStep {
    /**
     * Runs the step.
     *
     * @param budget how long the step may take; the lifecycle cuts it after that
     * @throws Exception any failure; it is logged and the next step runs
     */
    void run(Duration budget) throws Exception;
  }

  // budget null: no budget of its own, the step gets what remains of the total.
  private record Named(String name, Duration budget, BudgetedStep step) {}

  private final Duration totalTimeout;
  private final ProcessExit exit;
  private final LongSupplier nanoTime;
  private final List<Named> startSteps = new ArrayList<>();
  private final Map<StopPhase, List<Named>> stopSteps = new EnumMap<>(StopPhase.class);
  private final AtomicBoolean failed = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();

  /**
   * Creates a lifecycle.
   *
   * @param totalTimeout {@code shutdown.totalTimeout}: the budget of the whole shutdown
   * @param exit ends the process in {@link #fail(Throwable)}
   * @param nanoTime a monotonic clock in nanoseconds, {@code System::nanoTime} in production
   */
  public Lifecycle(Duration totalTimeout, ProcessExit exit, LongSupplier nanoTime) {
    this.totalTimeout = Objects.requireNonNull(totalTimeout, "totalTimeout");
    this.exit = Objects.requireNonNull(exit, "exit");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    for (StopPhase phase : StopPhase.values()) {
      stopSteps.put(phase, new ArrayList<>());
    }
  }

  /**
   * Adds a start step, run after the ones added before it.
   *
   * @param name a name for the logs, such as {@code "pool"}
   * @param step the step
   */
  public synchronized void onStart(String name, Step step) {
    Objects.requireNonNull(step, "step");
    startSteps.add(new Named(name, Duration.ZERO, budget -> step.run()));
  }

  /**
   * Adds a stop step to a phase, run after the ones added to that phase before it.
   *
   * @param phase the stop phase
   * @param name a name for the logs
   * @param budget the longest the step may take; the remaining total budget may cut it shorter
   * @param step the step
   */
  public synchronized void onStop(StopPhase phase, String name, Duration budget, Step step) {
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(step, "step");
    stopSteps.get(phase).add(new Named(name, budget, granted -> step.run()));
  }

  /**
   * Adds a stop step without a budget of its own: it gets what remains of {@code
   * shutdown.totalTimeout} when it starts, is told that budget, and is cut after it. For a step
   * that must end something running (a consumer round) when the budget runs out rather than be
   * abandoned with it still running.
   *
   * @param phase the stop phase
   * @param name a name for the logs
   * @param step the step, given the remaining budget
   */
  public synchronized void onStopWithRest(StopPhase phase, String name, BudgetedStep step) {
    stopSteps.get(phase).add(new Named(name, null, Objects.requireNonNull(step, "step")));
  }

  /**
   * Runs the start steps in order.
   *
   * @throws Exception the failure of the first step that fails; later steps do not run
   */
  public void start() throws Exception {
    List<Named> steps;
    synchronized (this) {
      steps = List.copyOf(startSteps);
    }
    for (Named named : steps) {
      long began = nanoTime.getAsLong();
      named.step().run(Duration.ZERO);
      LOG.info(
          "start step done: step={} elapsed_ms={}",
          named.name(),
          (nanoTime.getAsLong() - began) / 1_000_000);
    }
  }

  /**
   * Runs the stop steps phase by phase within {@code shutdown.totalTimeout}. Runs once; later calls
   * return at once.
   */
  public void stop() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    long deadline = nanoTime.getAsLong() + totalTimeout.toNanos();
    Map<StopPhase, List<Named>> phases;
    synchronized (this) {
      phases = new EnumMap<>(StopPhase.class);
      stopSteps.forEach((phase, steps) -> phases.put(phase, List.copyOf(steps)));
    }
    for (Map.Entry<StopPhase, List<Named>> phase : phases.entrySet()) {
      for (Named named : phase.getValue()) {
        long remaining = deadline - nanoTime.getAsLong();
        long rest = Math.max(remaining, 0);
        long budget = named.budget() == null ? rest : Math.min(named.budget().toNanos(), rest);
        runStop(phase.getKey(), named, budget);
      }
    }
  }

  private void runStop(StopPhase phase, Named named, long budgetNanos) {
    if (budgetNanos <= 0) {
      LOG.warn(
          "stop step skipped, shutdown.totalTimeout is used up: phase={} step={}",
          phase.code(),
          named.name());
      return;
    }
    FutureTask<Void> task =
        new FutureTask<>(
            () -> {
              named.step().run(Duration.ofNanos(budgetNanos));
              return null;
            });
    Thread thread = new Thread(task, "bothy-stop-" + named.name());
    thread.setDaemon(true);
    long began = nanoTime.getAsLong();
    thread.start();
    try {
      task.get(budgetNanos, TimeUnit.NANOSECONDS);
      LOG.info(
          "stop step done: phase={} step={} elapsed_ms={}",
          phase.code(),
          named.name(),
          (nanoTime.getAsLong() - began) / 1_000_000);
    } catch (TimeoutException e) {
      task.cancel(true);
      LOG.warn(
          "stop step cut after its budget: phase={} step={} budget_ms={}",
          phase.code(),
          named.name(),
          budgetNanos / 1_000_000);
    } catch (ExecutionException e) {
      LOG.error(
          "stop step failed: phase={} step={} error.type={}",
          phase.code(),
          named.name(),
          ErrorFields.type(e.getCause()),
          ErrorFields.redacted(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      task.cancel(true);
      LOG.warn("stop interrupted: phase={} step={}", phase.code(), named.name());
    }
  }

  /**
   * Ends the process with exit code 1 after an unexpected failure of a component. Logs the cause
   * once; later calls do nothing, so several components failing together give one log line.
   *
   * @param cause what failed
   */
  public void fail(Throwable cause) {
    if (!failed.compareAndSet(false, true)) {
      return;
    }
    LOG.error(
        "component failed, the process exits with status 1: error.type={} sqlstate={}",
        ErrorFields.type(cause),
        ErrorFields.sqlState(cause),
        ErrorFields.redacted(cause));
    exit.exit(1);
  }
}
