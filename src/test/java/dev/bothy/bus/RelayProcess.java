package dev.bothy.bus;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.adapters.nats.JetStreamClient;
import dev.bothy.bus.adapters.postgres.JooqRelayCursorRepository;
import dev.bothy.bus.adapters.postgres.PgRelayLease;
import dev.bothy.bus.app.RelayCursorRepository;
import dev.bothy.bus.app.RelayLease;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.app.RelayRunner;
import dev.bothy.bus.app.RelayService;
import dev.bothy.bus.app.StreamClient;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.lifecycle.Pause;
import dev.bothy.platform.pg.Listener;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.Event;
import dev.bothy.sync.SyncModule;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;

/**
 * A relay process for the crash tests of {@link RelayCrashTest}: the real {@link RelayService} and
 * {@link RelayRunner} with the real cursor store, lease, JetStream client and LISTEN waker, as
 * {@link Relay} wires them, on the class's database and the test's {@code nats-server}. Decorators
 * over the ports print marker lines the parent reads, and nothing else changes what the relay does:
 *
 * <ul>
 *   <li>{@value #CAS} before every compare-and-set of the cursor, which the relay calls only after
 *       the stream acknowledged; with a block point, the first one whose new value reaches it
 *       prints {@value #BLOCKED} instead and never returns, so the parent can kill the process at
 *       the moment "acks received, cursor not yet updated";
 *   <li>{@value #LEASE_TAKEN} and {@value #LEASE_LOST} when the lease changes hands;
 *   <li>{@value #PUBLISH} per window with its first and last {@code Bothy-Seq}, and {@code
 *       overlap=true} when another process was publishing at the same moment: each window holds an
 *       exclusive lock on a file shared by every relay process of the test, which the operating
 *       system frees when its holder dies.
 * </ul>
 *
 * <p>Arguments: name, NATS URL, block point (0 for none), shared lock file; the JDBC URL comes in
 * the environment variable {@link #URL_VARIABLE}.
 */
final class RelayProcess {
  static final String STARTED = "relay-process started";
  static final String CAS = "relay-process cas";
  static final String BLOCKED = "relay-process cas-blocked";
  static final String LEASE_TAKEN = "relay-process lease-taken";
  static final String LEASE_LOST = "relay-process lease-lost";
  static final String PUBLISH = "relay-process publish";

  /** The relay's {@code bus.relay.*} values in the children. */
  static final int BATCH = 100;

  static final int WINDOW = 20;
  static final Duration POLL = Duration.ofMillis(100);
  static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
  static final Duration LEASE_TIMEOUT = Duration.ofSeconds(5);

  /** The environment variable that carries the JDBC URL, which holds a password. */
  static final String URL_VARIABLE = "BOTHY_TEST_JDBC_URL";

  private RelayProcess() {}

  public static void main(String[] args) throws Exception {
    String name = args[0];
    String jdbcUrl = System.getenv(URL_VARIABLE);
    String natsUrl = args[1];
    long blockAt = Long.parseLong(args[2]);
    Path lockFile = Path.of(args[3]);

    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername("bothy_app");
    config.setMaximumPoolSize(4);
    config.setPoolName("relay-" + name);
    config.setConnectionInitSql("SET TIME ZONE '" + PgExtension.SESSION_TIME_ZONE + "'");
    HikariDataSource pool = new HikariDataSource(config);
    EventLogFixture log = new EventLogFixture(pool);
    Connection nats =
        Nats.connect(
            Options.builder()
                .server(natsUrl)
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(100))
                .connectionTimeout(Duration.ofSeconds(5))
                .build());
    RelayService service =
        new RelayService(
            new RelayService.Settings(RelayHarness.STREAM, BATCH, WINDOW, ACK_TIMEOUT),
            log.uow,
            new MarkedCursors(name, new JooqRelayCursorRepository(), blockAt),
            log.log,
            new ProbedStream(
                name,
                new JetStreamClient(nats, RelayHarness.STREAM, Streams::subjectOf, ACK_TIMEOUT),
                lockFile),
            new MarkedLease(
                name, new PgRelayLease(connection(jdbcUrl, "relay-lease-" + name), LEASE_TIMEOUT)),
            RelayMetrics.NONE,
            RelayTracer.NONE,
            Clock.system());
    PoolSettings listen = connection(jdbcUrl, Relay.LISTEN_APPLICATION_NAME);
    RelayRunner runner =
        new RelayRunner(
            service::round,
            new RelayRunner.Waker() {
              private Listener listener;

              @Override
              public synchronized void start(Runnable onWake) {
                listener =
                    new Listener(
                        listen,
                        SyncModule.LOG_CHANNEL,
                        POLL,
                        Duration.ofSeconds(1),
                        payload -> onWake.run(),
                        onWake,
                        RelayProcess::fatal);
                listener.start();
              }

              @Override
              public synchronized void close() {
                listener.close();
              }
            },
            POLL,
            Clock.system(),
            Pause.real(),
            service::stop,
            RelayProcess::fatal);
    service.ensureCursor();
    runner.start();
    mark(STARTED + " name=" + name);
    // The parent ends this process with SIGKILL (or SIGTERM at the end of a test).
    new CountDownLatch(1).await();
  }

  private static PoolSettings connection(String jdbcUrl, String applicationName) {
    return new PoolSettings(jdbcUrl, "bothy_app", null, 1, Duration.ofSeconds(5), applicationName);
  }

  private static void fatal(Throwable cause) {
    mark("relay-process fatal " + cause);
    System.exit(1);
  }

  private static synchronized void mark(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** The cursor store, printing each compare-and-set first, and blocking at the block point. */
  private record MarkedCursors(String name, RelayCursorRepository store, long blockAt)
      implements RelayCursorRepository {
    @Override
    public void ensureAtOldestRetained(String stream) {
      store.ensureAtOldestRetained(stream);
    }

    @Override
    public OptionalLong read(String stream) {
      return store.read(stream);
    }

    @Override
    public boolean compareAndSet(String stream, long expected, long next) {
      if (blockAt > 0 && next >= blockAt) {
        mark(BLOCKED + " name=" + name + " expected=" + expected + " next=" + next);
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("the blocked compare-and-set was interrupted");
      }
      mark(CAS + " name=" + name + " expected=" + expected + " next=" + next);
      return store.compareAndSet(stream, expected, next);
    }
  }

  /** The lease, printing when this process takes it and when it finds it lost. */
  private record MarkedLease(String name, RelayLease lease) implements RelayLease {
    @Override
    public boolean tryAcquire() {
      boolean taken = lease.tryAcquire();
      if (taken) {
        mark(LEASE_TAKEN + " name=" + name);
      }
      return taken;
    }

    @Override
    public boolean held() {
      boolean held = lease.held();
      if (!held) {
        mark(LEASE_LOST + " name=" + name);
      }
      return held;
    }

    @Override
    public void release() {
      lease.release();
    }
  }

  /** The stream client, holding the shared lock file around each window it publishes. */
  private static final class ProbedStream implements StreamClient {
    private final String name;
    private final StreamClient stream;
    private final FileChannel shared;

    ProbedStream(String name, StreamClient stream, Path lockFile) throws IOException {
      this.name = name;
      this.stream = stream;
      this.shared = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    @Override
    public StreamTail tail() {
      return stream.tail();
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, long base, String idSuffix) {
      FileLock lock;
      try {
        lock = shared.tryLock();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      mark(
          PUBLISH
              + " name="
              + name
              + " first="
              + events.get(0).seq()
              + " last="
              + events.get(events.size() - 1).seq()
              + " overlap="
              + (lock == null));
      try {
        return stream.publish(events, base, idSuffix);
      } finally {
        if (lock != null) {
          try {
            lock.release();
          } catch (IOException e) {
            mark("relay-process lock-release-failed name=" + name);
          }
        }
      }
    }

    @Override
    public OptionalLong bothySeqAt(long streamSeq) {
      return stream.bothySeqAt(streamSeq);
    }

    @Override
    public boolean connected() {
      return stream.connected();
    }
  }
}
