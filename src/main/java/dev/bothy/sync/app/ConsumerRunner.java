package dev.bothy.sync.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import dev.bothy.sync.ConsumerName;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the rounds of the worker consumers: one {@link ServiceLoop} per consumer, woken by the
 * {@link Waker} (one LISTEN connection per process for all of them) and every {@code
 * consumer.pollInterval}.
 *
 * <p>After a full batch the next round starts at once (drain); after a short batch, an idle round,
 * a locked row or a failed round the consumer waits for the next wake or poll. Wake signals
 * coalesce. A failed round is logged at error level once ("event consumer round failed") and its
 * recovery once ("event consumer recovered"), so an outage does not flood the log. An unexpected
 * end of a consumer thread outside a stop (an {@link Error} that is not a stack overflow, a stray
 * interrupt) goes to {@code onFatal}, {@code Lifecycle.fail} in production: the process exits 1.
 *
 * <p>Every wait (the poll, the retry after a failed round, the stop's budget) is counted on a
 * {@link Clock} and blocks through a {@link Pause}, so tests drive time instead of sleeping.
 */
public final class ConsumerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

  private final List<ConsumerName> names;
  private final Function<ConsumerName, RoundResult> rounds;
  private final Consumer<ConsumerName> cancelRound;
  private final Waker waker;
  private final Duration pollInterval;
  private final Clock clock;
  private final Pause pause;
  private final Consumer<Throwable> onFatal;
  private volatile List<ServiceLoop> loops = List.of();

  /**
   * Creates the runner; nothing runs until {@link #start()}.
   *
   * @param names the registered consumers
   * @param rounds runs one round of a consumer ({@link ConsumerService#round})
   * @param cancelRound cancels a consumer's running round on the database server ({@link
   *     ConsumerService#cancelRound}); called when a stop's budget runs out
   * @param waker wakes the consumers on notifications
   * @param pollInterval {@code consumer.pollInterval}: the poll and the wait after a failed round
   * @param clock decides when a wait or the stop's budget is over
   * @param pause blocks a consumer's thread while it waits; {@link Pause#real()} in production
   * @param onFatal called when a consumer thread ends outside a stop
   */
  public ConsumerRunner(
      List<ConsumerName> names,
      Function<ConsumerName, RoundResult> rounds,
      Consumer<ConsumerName> cancelRound,
      Waker waker,
      Duration pollInterval,
      Clock clock,
      Pause pause,
      Consumer<Throwable> onFatal) {
    this.names = List.copyOf(names);
    this.rounds = Objects.requireNonNull(rounds, "rounds");
    this.cancelRound = Objects.requireNonNull(cancelRound, "cancelRound");
    this.waker = Objects.requireNonNull(waker, "waker");
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pause = Objects.requireNonNull(pause, "pause");
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
    loops = names.stream().map(this::loop).toList();
    loops.forEach(ServiceLoop::start);
    waker.start(this::wakeAll);
    LOG.info("event consumers started: consumers={}", names);
  }

  private ServiceLoop loop(ConsumerName name) {
    return ServiceLoop.named("bothy-consumer-" + name.value())
        // Polls are never a trace; work found gets a root span (TraceContext).
        .around(it -> TraceContext.untracedCall(it::run))
        .every(pollInterval)
        .time(clock, pause)
        .log(new RoundLog(name))
        // A handler's Error (a stack overflow on one event) fails the round like an exception: the
        // consumer stalls and its alert reports it, the process keeps its other consumers. A JVM
        // that is out of memory or broken ends the thread and, through onFatal, the process.
        .retries(e -> !(e instanceof VirtualMachineError) || e instanceof StackOverflowError)
        .onFatal(onFatal)
        .build(
            () -> {
              RoundResult result = rounds.apply(name);
              return result.outcome() == RoundResult.Outcome.PROCESSED && result.full()
                  ? Next.AGAIN
                  : Next.WAIT;
            });
  }

  /** Wakes every consumer now, as a notification does. */
  public void wakeAll() {
    loops.forEach(ServiceLoop::wake);
  }

  /**
   * Starts no new round and waits up to {@code budget} for the running rounds to commit or roll
   * back. When the budget runs out, each round still running is cancelled on the database server
   * (its statement fails at once, so it rolls back and gives its connection back) and its thread is
   * interrupted, so the stop phases after this one are not held up by a round that runs on.
   *
   * @param budget what remains of {@code shutdown.totalTimeout} for this stop
   */
  public void stop(Duration budget) {
    waker.close();
    if (ServiceLoop.stopAll(loops, budget)) {
      LOG.info("event consumers stopped: consumers={}", names);
      return;
    }
    // The stop's own thread may be interrupted by the lifecycle at the same moment; the cancel
    // requests are socket writes that must still go out, so the flag waits until they did.
    boolean interrupted = Thread.interrupted();
    try {
      for (ConsumerName name : names) {
        cancelRound.accept(name);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    LOG.warn(
        "event consumers stop: rounds still running when the budget ran out are cancelled and"
            + " roll back");
  }

  /** The lines of one consumer's rounds, as the alerting guide names them. */
  private static final class RoundLog implements LoopLog {
    private final ConsumerName name;

    RoundLog(ConsumerName name) {
      this.name = name;
    }

    @Override
    public void failing(Throwable cause, Duration retryIn) {
      LOG.error(
          "event consumer round failed: bothy.consumer.name={} error.type={} sqlstate={}",
          name,
          ErrorFields.type(cause),
          ErrorFields.sqlState(cause));
    }

    @Override
    public void recovered() {
      LOG.info("event consumer recovered: bothy.consumer.name={}", name);
    }

    @Override
    public void ended(Throwable cause) {
      LOG.error(
          "event consumer thread ended unexpectedly: bothy.consumer.name={} error.type={}",
          name,
          ErrorFields.type(cause),
          ErrorFields.redacted(cause));
    }
  }
}
