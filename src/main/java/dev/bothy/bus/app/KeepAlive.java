package dev.bothy.bus.app;

import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Long work on NATS (issue 19, item 5): while a handler runs, the message it works on gets {@code
 * inProgress} every {@code bus.consumers.keepAliveInterval}, which restarts the server's {@code
 * ackWait}, so a handler longer than {@code ackWait} is not delivered again meanwhile. It does
 * nothing outside dispatch: a message is held from the start of its dispatch to its answer, and
 * only held messages get a tick. One loop per process, {@value #THREAD}, ticks every held message
 * each interval, so the longest gap between two resets of a message's {@code ackWait} is one
 * interval, which the start checks is shorter than {@code bus.consumers.ackWait}.
 *
 * <p>On the log transport it is {@link #NONE} (D-NT-4): a {@code bus.dispatch} job's attempt is
 * bounded by {@code bus.dispatch.jobTimeout} and the job runtime's rescuer, not by a lease to
 * renew.
 */
public final class KeepAlive {
  private static final Logger LOG = LoggerFactory.getLogger(KeepAlive.class);

  /** The loop's thread name. */
  public static final String THREAD = "bothy-bus-keepalive";

  /** A held message: released when its dispatch answered. */
  public interface Hold extends AutoCloseable {
    /** Stops the ticks of this message. */
    @Override
    void close();
  }

  /** Keeps nothing alive: the log transport's, and a test's control. */
  public static final KeepAlive NONE = new KeepAlive();

  private final Map<Object, Runnable> held = new ConcurrentHashMap<>();
  private final ServiceLoop loop;

  private KeepAlive() {
    this.loop = null;
  }

  private KeepAlive(Duration interval, Consumer<Throwable> onFatal) {
    this.loop =
        ServiceLoop.named(THREAD)
            .every(interval)
            .log(LoopLog.of(LOG, "bus keep-alive tick", ""))
            .onFatal(onFatal)
            .build(
                () -> {
                  tick();
                  return Next.WAIT;
                });
  }

  /**
   * Builds and starts the keep-alive loop.
   *
   * @param interval {@code bus.consumers.keepAliveInterval}
   * @param onFatal {@code Lifecycle::fail}
   * @return the running keep-alive
   */
  public static KeepAlive start(Duration interval, Consumer<Throwable> onFatal) {
    KeepAlive keepAlive = new KeepAlive(Objects.requireNonNull(interval, "interval"), onFatal);
    keepAlive.loop.start();
    return keepAlive;
  }

  /**
   * Holds a message while its dispatch runs.
   *
   * @param inProgress sends the message's {@code inProgress}; must not block for long
   * @return the hold, to close when the message is answered
   */
  public Hold hold(Runnable inProgress) {
    if (loop == null) {
      return () -> {};
    }
    Object key = new Object();
    held.put(key, Objects.requireNonNull(inProgress, "inProgress"));
    return () -> held.remove(key);
  }

  /** Sends one {@code inProgress} to every held message; the loop's pass, public for tests. */
  public void tick() {
    for (Runnable inProgress : held.values()) {
      try {
        inProgress.run();
      } catch (RuntimeException e) {
        // A lost connection: the message comes back after ackWait, into its delivery row.
        LOG.debug("bus keep-alive not sent: error.type={}", e.getClass().getName());
      }
    }
  }

  /**
   * Returns how many messages are held now.
   *
   * @return the count
   */
  public int held() {
    return held.size();
  }

  /**
   * Stops the loop.
   *
   * @param budget the longest wait for a running tick
   */
  public void stop(Duration budget) {
    if (loop != null) {
      loop.stop(budget);
    }
  }
}
