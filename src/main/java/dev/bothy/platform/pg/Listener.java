package dev.bothy.platform.pg;

import dev.bothy.kernel.ErrorFields;
import dev.bothy.platform.lifecycle.LoopLog;
import dev.bothy.platform.lifecycle.ServiceLoop;
import dev.bothy.platform.lifecycle.ServiceLoop.Next;
import dev.bothy.platform.telemetry.TraceContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dedicated LISTEN connection: one thread that holds its own connection (outside the pool, with
 * its own application name), listens on one channel and hands every notification's payload to a
 * callback, in arrival order.
 *
 * <p>When the connection is lost (a terminated backend, a restart, a network cut) it reconnects
 * with jittered exponential backoff from the initial interval up to {@code
 * database.listenReconnectBackoffCap}, and calls {@code onConnected} after every (re)connect:
 * notifications sent while it was away are lost, so the owner reads what it may have missed there.
 * Nothing is lost as long as the owner's state lives in the database.
 *
 * <p>The thread is a {@link ServiceLoop}: the first loss after a connect logs one warning, the next
 * connect its "listening" line, and an unexpected end of the thread goes to {@code onFatal}.
 *
 * <pre>{@code
 * Listener tail = new Listener(settingsNamedBothyTail, "event_log", poll, cap,
 *     payload -> tailer.poke(), tailer::poke, lifecycle::fail);
 * tail.start();
 * }</pre>
 */
public final class Listener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);

  // SQL text on purpose: jOOQ has no LISTEN statement, and LISTEN takes no bind parameters; the
  // channel was checked to be a plain identifier.
  private static final String LISTEN = "LISTEN ";

  private final PoolSettings connection;
  private final String channel;
  private final Duration initialBackoff;
  private final Duration backoffCap;
  private final Consumer<String> onNotification;
  private final Runnable onConnected;
  private final ServiceLoop loop;
  private volatile Connection current;

  /**
   * Creates a listener; {@link #start()} opens the connection.
   *
   * @param connection URL, user and password to connect with; its application name names the
   *     connection in {@code pg_stat_activity} (for example {@code bothy-tail})
   * @param channel the channel to LISTEN on, a plain identifier
   * @param initialBackoff the first wait after a lost connection, and how often the thread checks
   *     the connection while no notification arrives
   * @param backoffCap {@code database.listenReconnectBackoffCap}: the longest wait between two
   *     reconnection attempts
   * @param onNotification gets each notification's payload, on the listener's thread
   * @param onConnected runs after every successful (re)connect, on the listener's thread
   * @param onFatal called when the listener's thread ends unexpectedly ({@code Lifecycle.fail})
   */
  public Listener(
      PoolSettings connection,
      String channel,
      Duration initialBackoff,
      Duration backoffCap,
      Consumer<String> onNotification,
      Runnable onConnected,
      Consumer<Throwable> onFatal) {
    this.connection = Objects.requireNonNull(connection, "connection");
    if (!channel.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("channel must be a plain identifier: " + channel);
    }
    this.channel = channel;
    this.initialBackoff = Objects.requireNonNull(initialBackoff, "initialBackoff");
    this.backoffCap = Objects.requireNonNull(backoffCap, "backoffCap");
    this.onNotification = Objects.requireNonNull(onNotification, "onNotification");
    this.onConnected = Objects.requireNonNull(onConnected, "onConnected");
    this.loop =
        ServiceLoop.named("bothy-listen-" + connection.applicationName())
            // Polls are never a trace; work found gets a root span (TraceContext).
            .around(it -> TraceContext.untracedCall(it::run))
            .every(initialBackoff)
            .retryDelay(this::backoff)
            .log(new LostLog())
            .onFatal(onFatal)
            // A thread blocked reading the socket does not hear an interrupt; closing does it.
            .onStop(this::closeConnection)
            .build(this::listenOnce);
  }

  /** Starts the listening thread. */
  public void start() {
    loop.start();
  }

  /**
   * Connects when not connected, else waits one slice of the initial interval for notifications.
   * Every pass returns {@code AGAIN}: the wait is the driver's, on the socket.
   */
  private Next listenOnce() throws SQLException {
    Connection c = current;
    try {
      if (c == null) {
        c = open();
        current = c;
        try (Statement st = c.createStatement()) {
          st.execute(LISTEN + channel);
        }
        LOG.info(
            "listening: channel={} application_name={}", channel, connection.applicationName());
        onConnected.run();
        return Next.AGAIN;
      }
      int waitMillis = (int) Math.max(1, initialBackoff.toMillis());
      // Blocks until a notification or the timeout; throws when the connection is gone.
      PGNotification[] notifications = c.unwrap(PGConnection.class).getNotifications(waitMillis);
      if (notifications != null) {
        for (PGNotification n : notifications) {
          onNotification.accept(n.getParameter());
        }
      } else if (!c.isValid(1)) {
        throw new SQLException("the LISTEN connection is no longer valid", "08006");
      }
      return Next.AGAIN;
    } catch (SQLException | RuntimeException e) {
      closeConnection();
      throw e;
    }
  }

  /**
   * The wait before reconnection attempt {@code failures}: the initial interval first, then
   * doubling up to the cap, each drawn from the upper half so processes that lost the server
   * together spread out.
   */
  private Duration backoff(int failures) {
    if (failures <= 1) {
      return initialBackoff;
    }
    long doublings = Math.min(failures - 1, 30);
    Duration doubled = initialBackoff.multipliedBy(1L << doublings);
    Duration capped = doubled.compareTo(backoffCap) > 0 ? backoffCap : doubled;
    long nanos = capped.toNanos();
    return Duration.ofNanos(nanos / 2 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1));
  }

  /** The first lost connection of an outage warns; the next connect's "listening" line ends it. */
  private final class LostLog implements LoopLog {
    @Override
    public void failing(Throwable cause, Duration retryIn) {
      LOG.warn(
          "listen connection lost, reconnecting: channel={} application_name={} backoff_ms={}"
              + " error.type={} sqlstate={}",
          channel,
          connection.applicationName(),
          retryIn.toMillis(),
          ErrorFields.type(cause),
          ErrorFields.sqlState(cause));
    }

    @Override
    public void recovered() {
      // The connect that recovered has logged its "listening" line.
    }

    @Override
    public void ended(Throwable cause) {
      LOG.error(
          "listen connection thread ended unexpectedly: channel={} application_name={}"
              + " error.type={}",
          channel,
          connection.applicationName(),
          ErrorFields.type(cause),
          ErrorFields.redacted(cause));
    }
  }

  private Connection open() throws SQLException {
    return Pools.connect(connection);
  }

  private void closeConnection() {
    Connection c = current;
    current = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug(
            "closing the LISTEN connection failed: error.type={} sqlstate={}",
            ErrorFields.type(e),
            ErrorFields.sqlState(e));
      }
    }
  }

  /**
   * Stops the thread and closes the connection; waits a little longer than the backoff cap for the
   * thread to end, then abandons it.
   */
  @Override
  public void close() {
    loop.stop(backoffCap.plusSeconds(1));
    // A connection opened while the stop was asked is closed here.
    closeConnection();
  }
}
