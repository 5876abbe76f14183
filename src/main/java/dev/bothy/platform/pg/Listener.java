package dev.bothy.platform.pg;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
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
 * <pre>{@code
 * Listener tail = new Listener(settingsNamedBothyTail, "event_log", poll, cap,
 *     payload -> tailer.poke(), tailer::poke);
 * tail.start();
 * }</pre>
 */
public final class Listener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);

  private final PoolSettings connection;
  private final String channel;
  private final Duration initialBackoff;
  private final Duration backoffCap;
  private final Consumer<String> onNotification;
  private final Runnable onConnected;
  // SQL text on purpose: jOOQ has no LISTEN statement, and LISTEN takes no bind parameters; the
  // channel was checked to be a plain identifier.
  private static final String LISTEN = "LISTEN ";

  private final Thread thread;
  private volatile boolean running = true;
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
   */
  public Listener(
      PoolSettings connection,
      String channel,
      Duration initialBackoff,
      Duration backoffCap,
      Consumer<String> onNotification,
      Runnable onConnected) {
    this.connection = Objects.requireNonNull(connection, "connection");
    if (!channel.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("channel must be a plain identifier: " + channel);
    }
    this.channel = channel;
    this.initialBackoff = Objects.requireNonNull(initialBackoff, "initialBackoff");
    this.backoffCap = Objects.requireNonNull(backoffCap, "backoffCap");
    this.onNotification = Objects.requireNonNull(onNotification, "onNotification");
    this.onConnected = Objects.requireNonNull(onConnected, "onConnected");
    this.thread = new Thread(this::loop, "bothy-listen-" + connection.applicationName());
    this.thread.setDaemon(true);
  }

  /** Starts the listening thread. */
  public void start() {
    thread.start();
  }

  private void loop() {
    Duration backoff = initialBackoff;
    while (running) {
      try (Connection c = open()) {
        current = c;
        try (Statement st = c.createStatement()) {
          st.execute(LISTEN + channel);
        }
        LOG.info(
            "listening: channel={} application_name={}", channel, connection.applicationName());
        backoff = initialBackoff;
        onConnected.run();
        PGConnection pg = c.unwrap(PGConnection.class);
        int waitMillis = (int) Math.max(1, initialBackoff.toMillis());
        while (running) {
          // Blocks until a notification or the timeout; throws when the connection is gone.
          PGNotification[] notifications = pg.getNotifications(waitMillis);
          if (notifications != null) {
            for (PGNotification n : notifications) {
              onNotification.accept(n.getParameter());
            }
          } else if (!c.isValid(1)) {
            throw new SQLException("the LISTEN connection is no longer valid", "08006");
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (!running) {
          break;
        }
        LOG.warn(
            "listen connection lost, reconnecting: channel={} application_name={} backoff_ms={}"
                + " error={}",
            channel,
            connection.applicationName(),
            backoff.toMillis(),
            e.getMessage());
        if (!pause(backoff)) {
          break;
        }
        backoff = next(backoff);
      } finally {
        current = null;
      }
    }
  }

  private Duration next(Duration backoff) {
    Duration doubled = backoff.multipliedBy(2);
    Duration capped = doubled.compareTo(backoffCap) > 0 ? backoffCap : doubled;
    long nanos = capped.toNanos();
    // Full jitter in [capped/2, capped]: processes that lost the server together spread out.
    return Duration.ofNanos(nanos / 2 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1));
  }

  private boolean pause(Duration backoff) {
    try {
      Thread.sleep(backoff.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Connection open() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", connection.user());
    if (connection.password() != null) {
      properties.setProperty("password", connection.password());
    }
    properties.setProperty("ApplicationName", connection.applicationName());
    properties.setProperty(
        "connectTimeout", Long.toString(Math.max(1, connection.connectionTimeout().toSeconds())));
    Connection c = new org.postgresql.Driver().connect(connection.url(), properties);
    if (c == null) {
      throw new SQLException("not a PostgreSQL JDBC URL: " + connection.url(), "08001");
    }
    return c;
  }

  /** Stops the thread and closes the connection; waits briefly for the thread to end. */
  @Override
  public void close() {
    running = false;
    thread.interrupt();
    Connection c = current;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.debug("closing the LISTEN connection failed", e);
      }
    }
    try {
      thread.join(backoffCap.plusSeconds(1).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
