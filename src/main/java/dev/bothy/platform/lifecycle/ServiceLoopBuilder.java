package dev.bothy.platform.lifecycle;

import dev.bothy.kernel.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Describes a {@link ServiceLoop}; {@link #every} and {@link #onFatal} are required. Start one with
 * {@link ServiceLoop#named(String)}.
 */
public final class ServiceLoopBuilder {
  final String name;
  Duration interval;
  IntFunction<Duration> retryDelay;
  Predicate<Throwable> retries = e -> e instanceof Exception;
  boolean wakesCutRetries = true;
  LoopLog log;
  Consumer<Throwable> onFatal;
  Runnable onStop = () -> {};
  ServiceLoop.Around around = ServiceLoop.Iteration::run;
  Clock clock = Clock.system();
  Pause pause = Pause.real();

  ServiceLoopBuilder(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * Sets how long the loop waits after an iteration that returned {@link ServiceLoop.Next#WAIT},
   * unless a wake comes first; the retry delay too, unless {@link #retryDelay} says otherwise.
   *
   * @param interval a positive duration, from a named configuration key
   * @return this builder
   */
  public ServiceLoopBuilder every(Duration interval) {
    this.interval = interval;
    return this;
  }

  /**
   * Sets the wait after a failed iteration.
   *
   * @param afterFailures the wait after the given number of failures in a row (1 for the first)
   * @return this builder
   */
  public ServiceLoopBuilder retryDelay(IntFunction<Duration> afterFailures) {
    this.retryDelay = Objects.requireNonNull(afterFailures, "afterFailures");
    return this;
  }

  /**
   * Sets which throwables are failed iterations, retried; anything else ends the loop and the
   * process. The default retries every {@link Exception} and no {@link Error}. An {@link
   * InterruptedException} outside a stop always ends the loop.
   *
   * @param rule true for a failed iteration
   * @return this builder
   */
  public ServiceLoopBuilder retries(Predicate<Throwable> rule) {
    this.retries = Objects.requireNonNull(rule, "rule");
    return this;
  }

  /**
   * Makes the wait after a failed iteration deaf to wakes, for a loop woken very often (per
   * finished job) that must not retry at that pace during an outage. The wakes are kept: the first
   * wait after the retry ends at once.
   *
   * @return this builder
   */
  public ServiceLoopBuilder retriesIgnoreWakes() {
    this.wakesCutRetries = false;
    return this;
  }

  /**
   * Sets the lines of failure, recovery and unexpected end; the default names the loop.
   *
   * @param log the log, usually {@link LoopLog#of} with the owner's logger
   * @return this builder
   */
  public ServiceLoopBuilder log(LoopLog log) {
    this.log = Objects.requireNonNull(log, "log");
    return this;
  }

  /**
   * Sets what an unexpected end calls, after the log's {@link LoopLog#ended} line.
   *
   * @param onFatal {@code Lifecycle::fail} in production
   * @return this builder
   */
  public ServiceLoopBuilder onFatal(Consumer<Throwable> onFatal) {
    this.onFatal = Objects.requireNonNull(onFatal, "onFatal");
    return this;
  }

  /**
   * Sets what runs on the stopping thread once the stop is asked, before it waits: the way to end
   * an iteration blocked on something an interrupt does not reach (closing a socket).
   *
   * @param onStop runs once; what it throws is logged and the stop goes on
   * @return this builder
   */
  public ServiceLoopBuilder onStop(Runnable onStop) {
    this.onStop = Objects.requireNonNull(onStop, "onStop");
    return this;
  }

  /**
   * Sets what every iteration runs inside. Bothy's loops run their polls outside any recorded trace
   * ({@code TraceContext.untracedCall}): a poll that finds nothing must not become a trace, and
   * work they find (a job, a consumer round) gets a span of its own.
   *
   * @param around runs one iteration
   * @return this builder
   */
  public ServiceLoopBuilder around(ServiceLoop.Around around) {
    this.around = Objects.requireNonNull(around, "around");
    return this;
  }

  /**
   * Sets the time of the loop; for tests, a settable clock with a pause that lets it decide.
   *
   * @param clock decides when a wait or a stop budget is over
   * @param pause blocks the thread in between
   * @return this builder
   */
  public ServiceLoopBuilder time(Clock clock, Pause pause) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pause = Objects.requireNonNull(pause, "pause");
    return this;
  }

  /**
   * Builds the loop; nothing runs until {@link ServiceLoop#start()}.
   *
   * @param iteration one pass
   * @return the loop
   * @throws NullPointerException when {@link #every} or {@link #onFatal} is missing
   */
  public ServiceLoop build(ServiceLoop.Iteration iteration) {
    return new ServiceLoop(this, iteration);
  }
}
