package dev.bothy.bus.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the relay's rounds on one {@link ServiceLoop}, {@code bothy-bus-relay}: woken by the log's
 * notification (a LISTEN connection of its own) and every {@code bus.relay.pollInterval}; after a
 * full batch the next round starts at once. A failed round (the stream away or slow) is logged once
 * and its recovery once; the retry waits {@code bus.relay.pollInterval} and does not hear the log's
 * wakes, so an outage during heavy appends does not spin. An unexpected end of the thread ends the
 * process through {@code onFatal}.
 */
public final class RelayRunner {
  private static final Logger LOG = LoggerFactory.getLogger(RelayRunner.class);

  /** The loop's thread name. */
  public static final String THREAD = "bothy-bus-relay";

  /** Starts and stops the notifications that wake the relay. */
  public interface Waker {
    /**
     * Starts listening.
     *
     * @param onWake called on every notification and after every (re)connect; must not block
     */
    void start(Runnable onWake);

    /** Stops listening. */
    void close();
  }

  private final ServiceLoop loop;
  private final Waker waker;
  private final Runnable onStopped;

  /**
   * Creates the runner; nothing runs until {@link #start()}.
   *
   * @param round one round, wrapped in its span; true when more waits
   * @param waker the log's notifications
   * @param pollInterval {@code bus.relay.pollInterval}
   * @param clock the loop's clock
   * @param pause blocks the thread between rounds
   * @param onStopped runs after the loop ended on a stop (gives the lease up)
   * @param onFatal {@code Lifecycle::fail}
   */
  public RelayRunner(
      Supplier<Boolean> round,
      Waker waker,
      Duration pollInterval,
      Clock clock,
      Pause pause,
      Runnable onStopped,
      Consumer<Throwable> onFatal) {
    Objects.requireNonNull(round, "round");
    this.waker = Objects.requireNonNull(waker, "waker");
    this.onStopped = Objects.requireNonNull(onStopped, "onStopped");
    this.loop =
        ServiceLoop.named(THREAD)
            // Polls are never a trace; a round that publishes gets a root span of its own.
            .around(it -> TraceContext.untracedCall(it::run))
            .every(pollInterval)
            .time(clock, pause)
            .retriesIgnoreWakes()
            .log(new RelayLog())
            .onFatal(onFatal)
            .build(() -> round.get() ? Next.AGAIN : Next.WAIT);
  }

  /** Starts the loop and the notifications. */
  public void start() {
    loop.start();
    waker.start(loop::wake);
    LOG.info("bus relay started: loop={}", THREAD);
  }

  /** Wakes the loop now, as a notification does. */
  public void wake() {
    loop.wake();
  }

  /**
   * Stops the notifications and the loop: a running round may end within {@code budget}; then the
   * lease is given up.
   *
   * @param budget what remains of {@code shutdown.totalTimeout}
   */
  public void stop(Duration budget) {
    waker.close();
    boolean ended = loop.stop(budget);
    onStopped.run();
    LOG.info("bus relay stopped: status={}", ended ? "ended" : "abandoned");
  }

  /** One warning when the rounds start failing, one line when they work again. */
  private static final class RelayLog implements LoopLog {
    @Override
    public void failing(Throwable cause, Duration retryIn) {
      LOG.warn(
          "bus relay round failed, waiting for the stream: error.type={} sqlstate={} delay_ms={}",
          ErrorFields.type(cause),
          ErrorFields.sqlState(cause),
          retryIn.toMillis());
    }

    @Override
    public void recovered() {
      LOG.info("bus relay recovered");
    }

    @Override
    public void ended(Throwable cause) {
      LOG.error("bus relay loop ended unexpectedly: error.type={}", ErrorFields.type(cause));
    }
  }
}
