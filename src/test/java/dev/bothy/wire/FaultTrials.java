package dev.bothy.wire;

import dev.bothy.api.domain.TokenHash;
import dev.bothy.bus.Relay;
import dev.bothy.bus.Streams;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.sync.SyncModule;
import dev.bothy.sync.adapters.postgres.ListenerWaker;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The process-level fault trials of issue 20: real processes, real faults, exact checks.
 *
 * <p>One embedded PostgreSQL 18 and one {@code nats-server -js}, both owned by this harness so it
 * can restart them on the same data, port and store; an {@code api} process that writers drive
 * through the HTTP API; two {@code worker} processes ({@link ProbeWorker}: the real application,
 * whose worker consumers are the real {@code webhooks} and {@code bus} plus the probe consumer on
 * {@code push}, two known {@code sync.consumer_probe} jobs per event). The workers carry {@code
 * bus.nats.url}, so each runs a relay and one of them holds the lease; the {@code api} does not, so
 * the writers' entry is never the relay holder.
 *
 * <p>A trial ({@link #trial}): writers start; at a random moment one fault of a {@link Kind}
 * strikes; the writers go on for {@link Settings#writeAfterFault} after it, then stop (each
 * finishes its write, retried with its {@code Idempotency-Key}); the harness then polls until every
 * invariant holds and every process the fault took down runs again ("recovered"), or {@link
 * Settings#recoverWithin} passes. The invariants, over everything written since the start:
 *
 * <ul>
 *   <li>each acknowledged append is in the log exactly once (its events about its own resource);
 *   <li>each event has exactly two probe jobs, each {@code system.pinged} one {@code
 *       event_deliveries} row of {@code system.echo} (delivered by the NATS durable), and no {@code
 *       bus.dispatch} job exists;
 *   <li>each acknowledged ping is {@code echoed}, has exactly one {@code system.echoed}, and no
 *       ping exists that no write acknowledged;
 *   <li>the cursors {@code push} and {@code webhooks} and the relay's cursor are at the log's head,
 *       and {@code EVENTS} holds exactly the head's number of messages, the last with {@code
 *       Bothy-Seq} = head.
 * </ul>
 *
 * Lost counts the items with fewer effects than expected when the trial ends, doubled those with
 * more; a trial that does not recover in time is counted apart.
 */
public final class FaultTrials implements AutoCloseable {
  /** The faults, in the round-robin order of the benchmark; {@link #NONE} is the baseline. */
  public enum Kind {
    /** No fault: the time from the end of the writes to the invariants holding. */
    NONE("none"),
    /** SIGKILL of a random worker process, restarted at once. */
    WORKER_KILL("worker-kill"),
    /** {@code pg_terminate_backend} of a random backend of a Bothy process. */
    BACKEND_TERMINATE("backend-terminate"),
    /** {@code pg_terminate_backend} of a random LISTEN connection of a Bothy process. */
    LISTEN_TERMINATE("listen-terminate"),
    /** PostgreSQL stopped (fast shutdown) and started again on the same data and port. */
    POSTGRES_RESTART("postgres-restart"),
    /** {@code nats-server} killed with SIGKILL and started again on the same port and store. */
    NATS_RESTART("nats-restart"),
    /** SIGKILL of the worker process that holds the relay lease, restarted at once. */
    RELAY_HOLDER_KILL("relay-holder-kill");

    private final String code;

    Kind(String code) {
      this.code = code;
    }

    /**
     * Returns the name in the benchmark's rows and tables.
     *
     * @return the code, such as {@code worker-kill}
     */
    public String code() {
      return code;
    }

    /**
     * Returns the kinds that inject a fault, in order.
     *
     * @return every kind but {@link #NONE}
     */
    public static List<Kind> faults() {
      return Stream.of(values()).filter(k -> k != NONE).toList();
    }
  }

  /**
   * How the bus consumers get their events. The workers run the relay, so they have {@code
   * bus.nats.url}, and with it their bus consumers run as NATS durables (ADR 0024). A run on the
   * log transport needs workers without NATS and the relay in another process; it is not built.
   */
  public enum BusTransport {
    /**
     * The durable {@code system_echo} delivers each {@code system.pinged}: one delivery row per
     * ping, no {@code bus.dispatch} job and no cursor {@code bus}.
     */
    NATS
  }

  /**
   * The harness's settings.
   *
   * @param dir a scratch directory the harness owns
   * @param transport the bus consumers' transport
   * @param writeAfterFault how long the writers go on after the fault's injection returned
   * @param recoverWithin how long a trial waits for recovery before it counts as not recovered
   * @param startWithin how long a process may take to start
   */
  public record Settings(
      Path dir,
      BusTransport transport,
      Duration writeAfterFault,
      Duration recoverWithin,
      Duration startWithin) {}

  /**
   * What one trial found.
   *
   * @param kind the fault
   * @param recovered whether every invariant held and every process ran within the bound
   * @param recoverSeconds seconds from the fault to recovery (to the bound when not recovered)
   * @param lost items with fewer effects than expected at the end
   * @param doubled items with more effects than expected at the end
   * @param detail what the fault hit and, when something failed, what was wrong
   */
  public record Outcome(
      Kind kind,
      boolean recovered,
      double recoverSeconds,
      long lost,
      long doubled,
      String detail) {}

  /** {@code jobs.rescueAfter} of the workers, in seconds. */
  public static final int RESCUE_AFTER_SECONDS = 10;

  /** {@code jobs.maintenanceInterval} of the workers, in seconds. */
  public static final int MAINTENANCE_SECONDS = 2;

  private static final String TOKEN = "alex-fault-writer-3c9e1a7b5d2f";
  private static final String PROBE_KIND = "sync.consumer_probe";
  private static final int PROBE_JOBS = 2;
  private static final String ECHO = "system.echo";
  private static final List<String> CURSORS = List.of("push", "webhooks");
  private static final List<String> LISTEN_NAMES =
      List.of(
          ListenerWaker.APPLICATION_NAME,
          "bothy-jobs-listen",
          Relay.LISTEN_APPLICATION_NAME,
          SyncModule.TAIL_APPLICATION_NAME);

  private final Settings settings;
  private final Path pgData;
  private final int pgPort;
  private EmbeddedPostgresServer pg;
  private final NatsServer nats = NatsServer.jetStream();
  private Connection natsClient;
  private final Map<String, Proc> procs = new HashMap<>();
  private FaultWriters writers;
  private int trials;

  /** A child process and how to start it again. */
  private final class Proc {
    final String name;
    final String role;
    final Path config;
    ChildJvm jvm;
    boolean started;

    Proc(String name, String role, Path config) {
      this.name = name;
      this.role = role;
      this.config = config;
    }

    void launch() throws IOException {
      jvm =
          ChildJvm.startUncovered(
              ProbeWorker.class.getName(),
              settings.dir(),
              List.of("-Xmx384m"),
              Map.of(),
              role,
              config.toString());
      started = false;
    }

    /** Whether the process has finished its start (cached once true). */
    boolean started() {
      if (!started && jvm.process().isAlive()) {
        String out = jvm.output();
        started =
            out.contains("org.eclipse.jetty.server.Server: Started")
                && (!"worker".equals(role)
                    || out.contains("start step done: step=event_consumers"));
      }
      return started && jvm.process().isAlive();
    }

    void awaitStarted() throws Exception {
      long deadline = System.nanoTime() + settings.startWithin().toNanos();
      while (!started()) {
        if (!jvm.process().isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("process " + name + " did not start:\n" + jvm.output());
        }
        Thread.sleep(50);
      }
    }

    void killAndRestart() throws Exception {
      // Destroying a Process forcibly sends SIGKILL to exactly the child this harness started.
      jvm.process().destroyForcibly();
      if (!jvm.process().waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("process " + name + " did not end after SIGKILL");
      }
      jvm.close();
      launch();
    }
  }

  private FaultTrials(Settings settings) throws IOException {
    this.settings = settings;
    this.pgData = settings.dir().resolve("pg").resolve("data");
    this.pgPort = freePort();
  }

  /**
   * Starts PostgreSQL (migrated, with the instance record), {@code nats-server}, the {@code api}
   * process and the two workers, and waits until all of them run.
   *
   * @param settings the settings
   * @return the running harness; close it to stop everything it started
   * @throws Exception when something does not start; what started is stopped then
   */
  public static FaultTrials start(Settings settings) throws Exception {
    FaultTrials t = new FaultTrials(settings);
    try {
      t.startAll();
      return t;
    } catch (Exception | AssertionError e) {
      t.close();
      throw e;
    }
  }

  private void startAll() throws Exception {
    Files.createDirectories(settings.dir());
    pg = startPostgres();
    // Liquibase prints progress on stdout, which the benchmark keeps for its rows.
    PrintStream out = System.out;
    System.setOut(System.err);
    try {
      Migrator.migrate(pg.superuserDataSource());
    } finally {
      System.setOut(out);
    }
    PgExtension.recordInstance(pg.superuserDataSource());
    PgExtension.giveRolesThePassword(pg);
    nats.start();
    natsClient =
        Nats.connect(
            Options.builder()
                .server(nats.url())
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(100))
                .connectionTimeout(Duration.ofSeconds(5))
                .build());
    int apiPort = freePort();
    procs.put("api", new Proc("api", "api", config("api", apiYaml(apiPort))));
    for (String w : List.of("worker-a", "worker-b")) {
      procs.put(w, new Proc(w, "worker", config(w, workerYaml())));
    }
    for (Proc p : procs.values()) {
      p.launch();
    }
    for (Proc p : procs.values()) {
      p.awaitStarted();
    }
    writers = new FaultWriters(apiPort, TOKEN, Duration.ofSeconds(60));
  }

  private EmbeddedPostgresServer startPostgres() throws InterruptedException {
    RuntimeException last = null;
    // After a stop the port may stay bound a moment; bounded retries.
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        return EmbeddedPostgresServer.start(
            pgData,
            pgPort,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY);
      } catch (RuntimeException e) {
        last = e;
        Thread.sleep(200);
      }
    }
    throw last;
  }

  private String jdbcUrl() {
    // The server's password for every role (D-SEC-2); the processes read it with the URL.
    return PgExtension.urlWithPassword(pg, "postgres");
  }

  private Path config(String name, String yaml) throws IOException {
    Path file = settings.dir().resolve(name + ".yml");
    Files.writeString(file, yaml);
    return file;
  }

  private String apiYaml(int port) {
    return "database:\n  url: "
        + jdbcUrl()
        + "\nserver:\n  applicationConnectors:\n    - type: http\n      bindHost: 127.0.0.1\n"
        + "      port: "
        + port
        + "\n  adminConnectors:\n    - type: http\n      port: 0\n"
        + "  requestLog:\n    appenders: []\n"
        + "api:\n  tokens:\n    - name: alex-faults\n      sha256: "
        + TokenHash.sha256Hex(TOKEN)
        + "\n      scopes: [events:append, system:write]\n";
  }

  private String workerYaml() {
    return "database:\n  url: "
        + jdbcUrl()
        + "\nconsumer:\n  batchSize: 5\n  pollInterval: 100ms\n"
        // A job running in a process killed with SIGKILL stays running until the rescuer of a
        // maintenance pass finds it older than jobs.rescueAfter (default 1 hour, passes every
        // minute): short values here, so such a job runs again within a trial. Every timeout
        // that must stay below the rescue is shortened with it (CrossKeyChecks).
        + "jobs:\n  rescueAfter: "
        + RESCUE_AFTER_SECONDS
        + "s\n  maintenanceInterval: "
        + MAINTENANCE_SECONDS
        + "s\n  defaultTimeout: 4s\n"
        + "webhooks:\n  requestTimeout: 2s\n  jobTimeoutMargin: 2s\n"
        + busYaml()
        // Port 0: restarts bind the admin port again and again; nothing here reads it.
        + "server:\n  adminConnectors:\n    - type: http\n      port: 0\n";
  }

  /** The {@code bus} section of a worker: the relay on the harness's NATS, short waits. */
  private String busYaml() {
    String relay =
        "bus:\n  nats:\n    url: "
            + nats.url()
            + "\n  relay:\n    pollInterval: 100ms\n    publishAckTimeout: 1s\n"
            + "    leaseTimeout: 5s\n";
    String dispatch = "  dispatch:\n    jobTimeout: 4s\n";
    return switch (settings.transport()) {
      case NATS -> relay + dispatch;
    };
  }

  /**
   * Runs one trial of a kind.
   *
   * @param kind the fault
   * @param random where the moment and the target of the fault come from
   * @return what the trial found
   * @throws Exception when the harness itself fails (a process that cannot start, a writer whose
   *     write the API refused for good)
   */
  public Outcome trial(Kind kind, Random random) throws Exception {
    trials++;
    writers.start(2, 1, 20, random.nextLong());
    Thread.sleep(300 + random.nextInt(1500));
    long faultAt = System.nanoTime();
    String hit = inject(kind, random);
    Thread.sleep(settings.writeAfterFault().toMillis());
    writers.stop();
    long deadline = faultAt + settings.recoverWithin().toNanos();
    String wrong;
    while (true) {
      wrong = quickCheck();
      if (wrong == null) {
        break;
      }
      if (System.nanoTime() > deadline || wrong.startsWith("final:")) {
        break;
      }
      Thread.sleep(100);
    }
    double seconds = (System.nanoTime() - faultAt) / 1e9;
    Counts counts = check();
    boolean recovered = wrong == null && counts.lost() == 0 && counts.doubled() == 0;
    String detail =
        hit
            + (wrong == null ? "" : "; " + wrong)
            + (counts.wrong().isEmpty() ? "" : "; " + counts.wrong());
    if (!recovered) {
      System.err.println("faults: trial " + trials + " " + kind.code() + ": " + detail);
      for (Proc p : procs.values()) {
        // A process that ended by itself is a finding; start it again so the next trial runs.
        if (!p.jvm.process().isAlive()) {
          System.err.println("faults: " + p.name + " ended by itself:\n" + tail(p.jvm.output()));
          p.jvm.close();
          p.launch();
          p.awaitStarted();
        }
      }
    }
    return new Outcome(kind, recovered, seconds, counts.lost(), counts.doubled(), detail);
  }

  private static String tail(String text) {
    return text.length() <= 4000 ? text : text.substring(text.length() - 4000);
  }

  private String inject(Kind kind, Random random) throws Exception {
    switch (kind) {
      case NONE:
        return "no fault";
      case WORKER_KILL:
        {
          Proc w = procs.get(random.nextBoolean() ? "worker-a" : "worker-b");
          w.killAndRestart();
          return "killed " + w.name;
        }
      case BACKEND_TERMINATE:
        return terminate(
            "application_name LIKE 'bothy-%' AND pid <> pg_backend_pid()", random, "backend");
      case LISTEN_TERMINATE:
        return terminate(
            "application_name IN ('" + String.join("','", LISTEN_NAMES) + "')", random, "listen");
      case POSTGRES_RESTART:
        pg.close();
        pg = startPostgres();
        return "restarted PostgreSQL";
      case NATS_RESTART:
        nats.kill();
        nats.restart();
        return "restarted nats-server";
      case RELAY_HOLDER_KILL:
        {
          Proc holder = relayHolder();
          holder.killAndRestart();
          return "killed the relay holder " + holder.name;
        }
      default:
        throw new IllegalArgumentException("unknown kind " + kind);
    }
  }

  private String terminate(String where, Random random, String what) throws SQLException {
    List<String> candidates =
        PgExtension.rows(
            superuser(),
            "SELECT pid || ' ' || application_name FROM pg_stat_activity WHERE "
                + where
                + " ORDER BY pid");
    if (candidates.isEmpty()) {
      throw new IllegalStateException("no " + what + " connection of a Bothy process to terminate");
    }
    String victim = candidates.get(random.nextInt(candidates.size()));
    String pid = victim.substring(0, victim.indexOf(' '));
    PgExtension.rows(superuser(), "SELECT pg_terminate_backend(" + pid + ")::text");
    return "terminated " + what + " " + victim.substring(victim.indexOf(' ') + 1);
  }

  /**
   * The worker whose process holds the relay lease: the client port of the backend that holds the
   * advisory lock, mapped to the process owning that socket through {@code /proc}.
   */
  private Proc relayHolder() throws Exception {
    long deadline = System.nanoTime() + settings.startWithin().toNanos();
    while (System.nanoTime() < deadline) {
      List<String> ports =
          PgExtension.rows(
              superuser(),
              "SELECT a.client_port::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                  + " WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = '"
                  + Relay.LEASE_APPLICATION_NAME
                  + "'");
      if (ports.size() == 1) {
        Optional<Proc> owner = ownerOfLocalPort(Integer.parseInt(ports.get(0)));
        if (owner.isPresent()) {
          return owner.get();
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "no worker held the relay lease within " + settings.startWithin());
  }

  private Optional<Proc> ownerOfLocalPort(int port) throws IOException {
    String inode = null;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && f[1].contains(":")) {
          String hexPort = f[1].substring(f[1].lastIndexOf(':') + 1);
          if (!"sl".equals(f[0]) && Integer.parseInt(hexPort, 16) == port && !"0".equals(f[9])) {
            inode = f[9];
          }
        }
      }
    }
    if (inode == null) {
      return Optional.empty();
    }
    String socket = "socket:[" + inode + "]";
    for (Proc p : procs.values()) {
      Path fds = Path.of("/proc", Long.toString(p.jvm.process().pid()), "fd");
      try (Stream<Path> list = Files.list(fds)) {
        for (Path fd : (Iterable<Path>) list::iterator) {
          try {
            if (socket.equals(Files.readSymbolicLink(fd).toString())) {
              return Optional.of(p);
            }
          } catch (IOException e) {
            // The descriptor closed while listed.
          }
        }
      } catch (IOException e) {
        // The process ended while listed.
      }
    }
    return Optional.empty();
  }

  /**
   * Returns an unpooled data source of the superuser on the harness's database, for a test that
   * breaks an effect on purpose to see the check find it.
   *
   * @return the data source
   */
  public PGSimpleDataSource superuser() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl());
    ds.setUser(EmbeddedPostgresServer.SUPERUSER);
    ds.setConnectTimeout(2);
    // The item-by-item check reads every table whole, seconds on a long run.
    ds.setSocketTimeout(120);
    return ds;
  }

  /**
   * Cheap totals over everything written: null when every invariant holds and every process runs;
   * otherwise what is not there yet, prefixed {@code final:} when it can no longer change (more
   * effects than expected with every cursor at the head).
   */
  private String quickCheck() {
    for (Proc p : procs.values()) {
      if (!p.started()) {
        return p.jvm.process().isAlive() ? p.name + " starting" : "final: " + p.name + " ended";
      }
    }
    List<FaultWriters.Append> appends = writers.appends();
    long appended = appends.stream().mapToLong(FaultWriters.Append::events).sum();
    long pinged = writers.pings().size();
    long head;
    Map<String, Long> got = new HashMap<>();
    try (java.sql.Connection c = superuser().getConnection();
        Statement st = c.createStatement()) {
      // One snapshot for every count: the workers may still append (system.echoed) and make
      // jobs while the counts are read, and counts from different moments would disagree.
      c.setTransactionIsolation(java.sql.Connection.TRANSACTION_REPEATABLE_READ);
      c.setReadOnly(true);
      c.setAutoCommit(false);
      head = one(st, "SELECT coalesce(max(seq), 0) FROM event_log");
      for (String name : CURSORS) {
        got.put(
            "cursor " + name,
            one(st, "SELECT last_seq FROM event_consumer_cursors WHERE name = '" + name + "'"));
      }
      got.put("relay cursor", one(st, "SELECT last_seq FROM bus_relay_cursors"));
      got.put(
          "settings.updated events",
          one(st, "SELECT count(*) FROM event_log WHERE type = 'settings.updated'"));
      long pings = one(st, "SELECT count(*) FROM event_log WHERE type = 'system.pinged'");
      got.put("system.pinged events", pings);
      got.put("pings", one(st, "SELECT count(*) FROM system_pings"));
      got.put("echoed pings", one(st, "SELECT count(*) FROM system_pings WHERE status = 'echoed'"));
      got.put(
          "system.echoed events",
          one(st, "SELECT count(*) FROM event_log WHERE type = 'system.echoed'"));
      got.put("probe jobs", one(st, "SELECT count(*) FROM jobs WHERE kind = '" + PROBE_KIND + "'"));
      got.put("dispatch jobs", one(st, "SELECT count(*) FROM jobs WHERE kind = 'bus.dispatch'"));
      got.put(
          "deliveries",
          one(st, "SELECT count(*) FROM event_deliveries WHERE handler = '" + ECHO + "'"));
      c.rollback();
    } catch (SQLException e) {
      return "database: " + e.getClass().getSimpleName();
    }
    Map<String, Long> want = new HashMap<>();
    for (String name : CURSORS) {
      want.put("cursor " + name, head);
    }
    want.put("relay cursor", head);
    want.put("settings.updated events", appended);
    want.put("system.pinged events", pinged);
    want.put("pings", pinged);
    want.put("echoed pings", pinged);
    want.put("system.echoed events", pinged);
    want.put("probe jobs", head * PROBE_JOBS);
    // On NATS no bus.dispatch job exists.
    want.put("dispatch jobs", 0L);
    want.put("deliveries", pinged);
    List<String> behind = new ArrayList<>();
    List<String> ahead = new ArrayList<>();
    for (Map.Entry<String, Long> w : want.entrySet()) {
      long g = got.get(w.getKey());
      if (g < w.getValue()) {
        behind.add(w.getKey() + " " + g + " of " + w.getValue());
      } else if (g > w.getValue()) {
        ahead.add(w.getKey() + " " + g + " of " + w.getValue());
      }
    }
    String stream = streamCheck(head);
    if (stream != null) {
      behind.add(stream);
    }
    if (behind.isEmpty() && ahead.isEmpty()) {
      return null;
    }
    boolean cursorsAtHead =
        CURSORS.stream().allMatch(n -> got.get("cursor " + n) == head)
            && got.get("relay cursor") == head;
    return (ahead.isEmpty() || !cursorsAtHead ? "" : "final: ")
        + "behind "
        + behind
        + " ahead "
        + ahead;
  }

  private String streamCheck(long head) {
    try {
      JetStreamManagement jsm = natsClient.jetStreamManagement();
      StreamState state = jsm.getStreamInfo(Streams.EVENTS).getStreamState();
      if (state.getMsgCount() != head || state.getLastSequence() != head) {
        return "stream " + state.getMsgCount() + " messages, last " + state.getLastSequence();
      }
      if (head == 0) {
        return null;
      }
      MessageInfo last = jsm.getMessage(Streams.EVENTS, state.getLastSequence());
      String seq = last.getHeaders().getFirst("Bothy-Seq");
      return Long.toString(head).equals(seq) ? null : "stream's last Bothy-Seq " + seq;
    } catch (IOException | io.nats.client.JetStreamApiException | RuntimeException e) {
      return "stream: " + e.getClass().getSimpleName();
    }
  }

  private static long one(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        throw new SQLException("no row: " + sql);
      }
      return rs.getLong(1);
    }
  }

  /**
   * What the exact check found.
   *
   * @param lost items with fewer effects than expected
   * @param doubled items with more effects than expected
   * @param wrong what was wrong, readable, or empty
   */
  public record Counts(long lost, long doubled, String wrong) {}

  /**
   * The exact check, item by item over everything written since the start: every acknowledged
   * write, every event, every ping and every job, against what it must have caused.
   *
   * @return what it found
   * @throws SQLException when the database cannot be read
   */
  public Counts check() throws SQLException {
    List<FaultWriters.Append> appends = writers.appends();
    List<UUID> pings = writers.pings();
    List<String> wrong = new ArrayList<>();
    long lost = 0;
    long doubled = 0;
    try (java.sql.Connection c = superuser().getConnection()) {
      // Events with fewer or more than two probe jobs, and probe jobs of no event.
      long[] probe =
          pair(
              c,
              "SELECT count(*) FILTER (WHERE n < "
                  + PROBE_JOBS
                  + "), count(*) FILTER (WHERE n > "
                  + PROBE_JOBS
                  + ") FROM (SELECT e.seq, count(j.id) AS n FROM event_log e LEFT JOIN jobs j"
                  + " ON j.kind = '"
                  + PROBE_KIND
                  + "' AND (j.args->>'seq')::bigint = e.seq GROUP BY e.seq) x",
              null);
      long strayProbe =
          pair(
              c,
              "SELECT count(*), 0 FROM jobs j WHERE j.kind = '"
                  + PROBE_KIND
                  + "' AND NOT EXISTS (SELECT 1 FROM event_log e WHERE e.seq ="
                  + " (j.args->>'seq')::bigint)",
              null)[0];
      note(wrong, "events missing probe jobs", probe[0]);
      note(wrong, "events with extra probe jobs", probe[1]);
      note(wrong, "probe jobs of no event", strayProbe);
      lost += probe[0];
      doubled += probe[1] + strayProbe;
      // A delivery row per system.pinged; on NATS no bus.dispatch job at all.
      long strayDispatch =
          pair(c, "SELECT count(*), 0 FROM jobs j WHERE j.kind = 'bus.dispatch'", null)[0];
      long missingDelivery =
          pair(
              c,
              "SELECT count(*), 0 FROM event_log e WHERE e.type = 'system.pinged' AND NOT EXISTS"
                  + " (SELECT 1 FROM event_deliveries d WHERE d.handler = '"
                  + ECHO
                  + "' AND d.event_id = e.id)",
              null)[0];
      note(wrong, "bus.dispatch jobs on the NATS transport", strayDispatch);
      note(wrong, "pings missing a delivery row", missingDelivery);
      lost += missingDelivery;
      doubled += strayDispatch;
      // Each acknowledged ping: echoed, one system.echoed; pings no write acknowledged.
      UUID[] ids = pings.toArray(UUID[]::new);
      // Hash joins over the whole tables: a lookup per ping grows with the square of the run.
      long[] echo =
          pair(
              c,
              "WITH a AS (SELECT DISTINCT unnest(?::uuid[]) AS id), e AS (SELECT resource_id,"
                  + " count(*) AS n FROM event_log WHERE type = 'system.echoed' GROUP BY"
                  + " resource_id) SELECT count(*) FILTER (WHERE p.status IS DISTINCT FROM"
                  + " 'echoed' OR e.n IS NULL), count(*) FILTER (WHERE e.n > 1) FROM a LEFT JOIN"
                  + " system_pings p ON p.id = a.id LEFT JOIN e ON e.resource_id = a.id",
              ids);
      long strayPings =
          pair(
              c,
              "SELECT count(*), 0 FROM system_pings p LEFT JOIN (SELECT DISTINCT unnest(?::uuid[])"
                  + " AS id) a ON a.id = p.id WHERE a.id IS NULL",
              ids)[0];
      note(wrong, "pings not echoed once", echo[0]);
      note(wrong, "pings echoed more than once", echo[1]);
      note(wrong, "pings no write acknowledged", strayPings);
      lost += echo[0];
      doubled += echo[1] + strayPings;
      // Each acknowledged append: its events exactly once.
      Map<UUID, Integer> expected = new HashMap<>();
      appends.forEach(a -> expected.put(a.resource(), a.events()));
      Map<UUID, Long> found = new HashMap<>();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT resource_id, count(*) FROM event_log WHERE type = 'settings.updated'"
                  + " GROUP BY resource_id")) {
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            found.put(rs.getObject(1, UUID.class), rs.getLong(2));
          }
        }
      }
      long appendLost = 0;
      long appendDoubled = 0;
      for (Map.Entry<UUID, Integer> e : expected.entrySet()) {
        long n = found.getOrDefault(e.getKey(), 0L);
        appendLost += n < e.getValue() ? 1 : 0;
        appendDoubled += n > e.getValue() ? 1 : 0;
      }
      long strayAppends = found.keySet().stream().filter(k -> !expected.containsKey(k)).count();
      note(wrong, "appends not in the log whole", appendLost);
      note(wrong, "appends in the log twice", appendDoubled);
      note(wrong, "appends no write acknowledged", strayAppends);
      lost += appendLost;
      doubled += appendDoubled + strayAppends;
    }
    return new Counts(lost, doubled, String.join(", ", wrong));
  }

  private static void note(List<String> wrong, String what, long n) {
    if (n > 0) {
      wrong.add(what + ": " + n);
    }
  }

  private static long[] pair(java.sql.Connection c, String sql, UUID[] ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (ids != null) {
        Array array = c.createArrayOf("uuid", ids);
        ps.setArray(1, array);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  /**
   * Checks the whole stream message by message: {@code EVENTS} holds the log, each event once, in
   * order ({@code Bothy-Seq} = stream sequence = log sequence, the id as {@code Nats-Msg-Id}).
   *
   * @return null when it does, else the first difference
   * @throws Exception when the stream or the log cannot be read
   */
  public String streamHoldsTheLog() throws Exception {
    JetStreamManagement jsm = natsClient.jetStreamManagement();
    StreamState state = jsm.getStreamInfo(Streams.EVENTS).getStreamState();
    List<String> ids = PgExtension.rows(superuser(), "SELECT id::text FROM event_log ORDER BY seq");
    if (state.getMsgCount() != ids.size() || state.getFirstSequence() > 1 && !ids.isEmpty()) {
      return "the stream holds " + state.getMsgCount() + " messages, the log " + ids.size();
    }
    for (int i = 0; i < ids.size(); i++) {
      MessageInfo m = jsm.getMessage(Streams.EVENTS, i + 1L);
      String seq = m.getHeaders().getFirst("Bothy-Seq");
      String id = m.getHeaders().getFirst("Nats-Msg-Id");
      if (!Long.toString(i + 1L).equals(seq) || !ids.get(i).equals(id)) {
        return "stream message " + (i + 1) + " holds Bothy-Seq " + seq + " and id " + id;
      }
    }
    return null;
  }

  /** Stops the writers, the processes, {@code nats-server} and PostgreSQL. */
  @Override
  public void close() {
    if (writers != null) {
      try {
        writers.stop();
      } catch (Exception e) {
        System.err.println("faults: the writers at close: " + e);
      }
    }
    for (Proc p : procs.values()) {
      if (p.jvm != null) {
        try {
          p.jvm.terminate(Duration.ofSeconds(30));
        } catch (Exception e) {
          System.err.println("faults: " + p.name + " did not stop on SIGTERM: " + e);
        }
        try {
          p.jvm.close();
        } catch (IOException e) {
          System.err.println("faults: " + p.name + ": " + e);
        }
      }
    }
    if (natsClient != null) {
      try {
        natsClient.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    nats.close();
    if (pg != null) {
      pg.close();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
