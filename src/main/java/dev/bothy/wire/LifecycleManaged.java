package dev.bothy.wire;

import ch.qos.logback.classic.LoggerContext;
import dev.bothy.platform.lifecycle.Lifecycle;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Lifecycle} from Dropwizard: start before the connectors open, stop after they
 * closed.
 *
 * <p>Its JVM shutdown hook does two things Jetty's own hook does not:
 *
 * <ul>
 *   <li>It stops a server that is still starting. Jetty's hook stops only a started server, so a
 *       SIGTERM during the start steps, or between them and the connectors' start, ran no stop
 *       phase and the exit waited out the whole grace. The hook asks the server to stop; Jetty
 *       holds that stop until its start has ended, then the stop phases run in order.
 *   <li>It keeps the last log lines of a shutdown: Dropwizard's console appender is asynchronous
 *       and Dropwizard stops logging from a plain thread after the server stopped, so a JVM ending
 *       on SIGTERM could drop the lines of the stop phases. The hook waits, up to the exit grace
 *       for the start to end and up to the exit grace again for the stop phases, then stops the
 *       logger context, which flushes the queued lines before the JVM halts.
 * </ul>
 */
final class LifecycleManaged implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(LifecycleManaged.class);

  private final Lifecycle lifecycle;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread exitHook;
  private volatile boolean starting;
  private volatile LifeCycle server;

  /**
   * Creates the bridge.
   *
   * @param lifecycle the lifecycle
   * @param exitGrace how long the exit waits for the stop phases before flushing the logs
   */
  LifecycleManaged(Lifecycle lifecycle, Duration exitGrace) {
    this.lifecycle = lifecycle;
    this.exitHook = new Thread(() -> onExit(exitGrace), "bothy-exit");
    Runtime.getRuntime().addShutdownHook(exitHook);
  }

  /**
   * Remembers the server as it starts, so the exit hook can stop it while it is still starting.
   * Register through {@link #onStarting}.
   *
   * @param starting the starting server
   */
  void serverStarting(LifeCycle starting) {
    this.server = starting;
  }

  private void onExit(Duration exitGrace) {
    if (starting) {
      LifeCycle toStop = server;
      if (toStop != null) {
        // Jetty's own hook skips a server that is not started yet. Its stop waits for a running
        // start to end, so it runs on its own thread: the wait below stays bounded.
        Thread stopper =
            new Thread(
                () -> {
                  try {
                    toStop.stop();
                  } catch (Exception e) {
                    LOG.warn("stop at exit failed: error.type={}", e.getClass().getName());
                  }
                },
                "bothy-stop-at-exit");
        stopper.setDaemon(true);
        stopper.start();
      }
      try {
        if (stopping.await(exitGrace.toMillis(), TimeUnit.MILLISECONDS)) {
          stopped.await(exitGrace.toMillis(), TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.stop();
    }
  }

  @Override
  public void start() throws Exception {
    starting = true;
    try {
      lifecycle.start();
    } catch (Exception | Error e) {
      // A failed start ends the process; the stop phases still close what started.
      stopping.countDown();
      lifecycle.stop();
      stopped.countDown();
      throw e;
    }
  }

  @Override
  public void stop() {
    stopping.countDown();
    lifecycle.stop();
    stopped.countDown();
    try {
      // Stopped without the JVM ending (tests, embedding): the hook is not needed any more.
      Runtime.getRuntime().removeShutdownHook(exitHook);
    } catch (IllegalStateException e) {
      // The JVM is exiting: the hook flushes the logs now that the stop phases are done.
    }
  }

  /**
   * A listener for Jetty's server that runs an action as the server starts, before it opens the
   * connectors: for settings Dropwizard made while it built the server and Bothy replaces.
   *
   * @param action what to run, given the starting server
   * @return the listener, for {@code environment.lifecycle().addEventListener}
   */
  static LifeCycle.Listener onStarting(java.util.function.Consumer<LifeCycle> action) {
    return new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        action.accept(event);
      }
    };
  }

  /**
   * A Jetty listener that runs an action as Jetty starts to stop.
   *
   * @param action what to run
   * @return the listener
   */
  static LifeCycle.Listener onStopping(Runnable action) {
    return new LifeCycle.Listener() {
      @Override
      public void lifeCycleStopping(LifeCycle event) {
        action.run();
      }
    };
  }

  /**
   * A Jetty listener that runs an action when Jetty fails to start (a port taken).
   *
   * @param action what to run
   * @return the listener
   */
  static LifeCycle.Listener onFailure(Runnable action) {
    return new LifeCycle.Listener() {
      @Override
      public void lifeCycleFailure(LifeCycle event, Throwable cause) {
        action.run();
      }
    };
  }
}
