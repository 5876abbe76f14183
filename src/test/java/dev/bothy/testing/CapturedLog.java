package dev.bothy.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The events one logger writes while attached: for tests that assert what a line says, or that it
 * is written once. {@link #close()} detaches it; the events stay readable afterwards.
 */
public final class CapturedLog implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLog(Logger logger) {
    this.logger = logger;
    appender.start();
    logger.addAppender(appender);
  }

  /**
   * Starts capturing what a class's logger writes.
   *
   * @param type the class whose logger to capture
   * @return the capture, attached
   */
  public static CapturedLog of(Class<?> type) {
    return of(LoggerFactory.getLogger(type));
  }

  /**
   * Starts capturing what a logger writes.
   *
   * @param logger a Logback logger behind SLF4J
   * @return the capture, attached
   */
  public static CapturedLog of(org.slf4j.Logger logger) {
    return new CapturedLog((Logger) logger);
  }

  /**
   * Returns the events captured so far, in the order they were written.
   *
   * @return a copy of the events
   */
  public List<ILoggingEvent> events() {
    // Logback appends under the appender's own lock.
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** Stops capturing; the events stay readable. */
  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
