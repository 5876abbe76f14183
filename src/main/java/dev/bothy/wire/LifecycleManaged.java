package dev.bothy.wire;

import ch.qos.logback.classic.LoggerContext;
import dev.bothy.platform.lifecycle.Lifecycle;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Lifecycle} from Dropwizard: start before the connectors open, stop after they
 * closed.
 *
 * <p>It also keeps the last log lines of a shutdown: Dropwizard's console appender is asynchronous
 * and Dropwizard stops logging from a plain thread after the server stopped, so a JVM ending on
 * SIGTERM could drop the lines of the stop phases. A JVM shutdown hook waits, up to the exit grace,
 * for the stop phases to finish, then stops the logger context, which flushes the queued lines
 * before the JVM halts.
 */
final class LifecycleManaged implements Managed {
  private final Lifecycle lifecycle;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread logFlush;
  private volatile boolean started;

  /**
   * Creates the bridge.
   *
   * @param lifecycle the lifecycle
   * @param exitGrace how long the exit waits for the stop phases before flushing the logs
   */
  LifecycleManaged(Lifecycle lifecycle, Duration exitGrace) {
    this.lifecycle = lifecycle;
    this.logFlush =
        new Thread(
            () -> {
              if (started) {
                try {
                  stopped.await(exitGrace.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
                context.stop();
              }
            },
            "bothy-log-flush");
    Runtime.getRuntime().addShutdownHook(logFlush);
  }

  @Override
  public void start() throws Exception {
    try {
      lifecycle.start();
      started = true;
    } catch (Exception | Error e) {
      // A failed start ends the process; the stop phases still close what started.
      lifecycle.stop();
      stopped.countDown();
      throw e;
    }
  }

  @Override
  public void stop() {
    lifecycle.stop();
    stopped.countDown();
    try {
      // Stopped without the JVM ending (tests, embedding): the hook is not needed any more.
      Runtime.getRuntime().removeShutdownHook(logFlush);
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
