package dev.bothy.sync.adapters.postgres;

import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.app.Waker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The {@link Waker} of the worker consumers: {@code LISTEN event_log} on a dedicated connection
 * (application name {@code bothy-consumer-wake}), apart from the log tail's, so in the {@code all}
 * role the tail never depends on the consumers. It reconnects with backoff from {@code
 * consumer.pollInterval} up to {@code database.listenReconnectBackoffCap}; the payload is not
 * needed, any notification wakes every consumer.
 */
public final class ListenerWaker implements Waker {
  /** The application name of the connection. */
  public static final String APPLICATION_NAME = "bothy-consumer-wake";

  private final PoolSettings connection;
  private final Duration initialBackoff;
  private final Duration backoffCap;
  private final Consumer<Throwable> onFatal;
  private Listener listener;

  /**
   * Creates the waker.
   *
   * @param connection the connection settings; its application name should be {@link
   *     #APPLICATION_NAME}
   * @param initialBackoff {@code consumer.pollInterval}
   * @param backoffCap {@code database.listenReconnectBackoffCap}
   * @param onFatal called when the listening thread ends unexpectedly ({@code Lifecycle.fail})
   */
  public ListenerWaker(
      PoolSettings connection,
      Duration initialBackoff,
      Duration backoffCap,
      Consumer<Throwable> onFatal) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.initialBackoff = Objects.requireNonNull(initialBackoff, "initialBackoff");
    this.backoffCap = Objects.requireNonNull(backoffCap, "backoffCap");
    this.onFatal = Objects.requireNonNull(onFatal, "onFatal");
  }

  @Override
  public synchronized void start(Runnable onWake) {
    listener =
        new Listener(
            connection,
            JooqEventRepository.CHANNEL,
            initialBackoff,
            backoffCap,
            payload -> onWake.run(),
            onWake,
            onFatal);
    listener.start();
  }

  @Override
  public synchronized void close() {
    if (listener != null) {
      listener.close();
    }
  }
}
