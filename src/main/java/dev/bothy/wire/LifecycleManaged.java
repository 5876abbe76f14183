package dev.bothy.wire;

import ch.qos.logback.classic.LoggerContext;
import dev.bothy.platform.lifecycle.Lifecycle;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Lifecycle} from Dropwizard: start before the connectors open, stop after they
 * closed.
 *
 * <p>Its JVM shutdown hook is the one that stops the server (Jetty's own is turned off as the
 * server starts, see {@link #serverStarting}):
 *
 * <ul>
 *   <li>It stops a server that is still starting: a SIGTERM during the start steps, or between them
 *       and the connectors' start, waits for the start to end, then the stop phases run in order.
 *       Jetty's hook skipped such a server, so the process ran no stop phase.
 *   <li>It keeps the last log lines of a shutdown: Dropwizard's console appender is asynchronous
 *       and Dropwizard stops logging from a plain thread after the server stopped, so a JVM ending
 *       on SIGTERM could drop the lines of the stop phases. The hook waits for the stop, up to
 *       twice the exit grace (the rest of a start, then the stop), then stops the logger context,
 *       which flushes the queued lines before the JVM halts.
 * </ul>
 */
final class LifecycleManaged implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(LifecycleManaged.class);

  private final Lifecycle lifecycle;
  private final Thread exitHook;
  private volatile LifeCycle server;

  /**
   * Creates the bridge.
   *
   * @param lifecycle the lifecycle
   * @param exitGrace how long the exit waits for the stop phases before flushing the logs
   * @param connectorGrace {@code server.shutdownGracePeriod}: how long the connectors wait for
   *     requests in flight, for the log lines of the stop
   */
  LifecycleManaged(Lifecycle lifecycle, Duration exitGrace, Duration connectorGrace) {
    this.lifecycle = lifecycle;
    this.exitHook = new Thread(() -> onExit(exitGrace, connectorGrace), "bothy-exit");
    Runtime.getRuntime().addShutdownHook(exitHook);
  }

  /**
   * Takes the server over as it starts: remembers it for the exit hook and turns Jetty's own
   * shutdown hook off, so one hook alone stops the server. Jetty's hook stops only a started server
   * and then destroys it even while another thread still stops it, which left a process hanging
   * when both hooks ran. Register through {@link #onStarting}.
   *
   * @param starting the starting server
   */
  void serverStarting(LifeCycle starting) {
    if (starting instanceof Server jetty) {
      jetty.setStopAtShutdown(false);
    }
    this.server = starting;
  }

  private void onExit(Duration exitGrace, Duration connectorGrace) {
    LifeCycle toStop = server;
    if (toStop != null) {
      // The JVM does not say which signal ended it; the line tells an operator the stop began
      // and how long a slow request can hold it.
      LOG.info(
          "stop requested: closing the connectors, requests in flight get"
              + " server.shutdownGracePeriod ({} ms), then the stop phases run",
          connectorGrace.toMillis());
      // Jetty holds a stop until a running start has ended, so a SIGTERM during the start stops
      // the process in order once it started. On its own thread, so the wait stays bounded: the
      // rest of a start and the stop (grace period and stop phases) each get the exit grace.
      Thread stopper =
          new Thread(
              () -> {
                try {
                  toStop.stop();
                } catch (Exception e) {
                  logStopFailure(e, connectorGrace);
                }
              },
              "bothy-stop-at-exit");
      stopper.setDaemon(true);
      stopper.start();
      try {
        stopper.join(exitGrace.multipliedBy(2).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.stop();
    }
  }

  /**
   * Jetty stops everything it holds and then throws a {@link TimeoutException} when requests were
   * still open at the end of the grace period: the stop is complete, those requests were cut off.
   */
  private static void logStopFailure(Exception e, Duration connectorGrace) {
    if (causedByTimeout(e)) {
      LOG.warn(
          "requests still open after server.shutdownGracePeriod ({} ms) were cut off; raise it"
              + " for longer requests",
          connectorGrace.toMillis());
    } else {
      LOG.warn("stop at exit failed: error.type={}", e.getClass().getName());
    }
  }

  private static boolean causedByTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
      for (Throwable suppressed : t.getSuppressed()) {
        if (suppressed instanceof TimeoutException) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public void start() throws Exception {
    try {
      lifecycle.start();
    } catch (Exception | Error e) {
      // A failed start ends the process; the stop phases still close what started.
      lifecycle.stop();
      throw e;
    }
  }

  @Override
  public void stop() {
    lifecycle.stop();
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
