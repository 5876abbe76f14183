package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.BusConsumerSettings;
import dev.bothy.bus.BusHandler;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.Relay;
import dev.bothy.bus.RelayTracer;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.NatsConsumerRunner;
import dev.bothy.bus.adapters.nats.NatsStreams;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.bus.domain.ConsumerFilters;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.EventTypes;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BusConfig;
import dev.bothy.wire.config.BusConsumersConfig;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.JobsConfig;
import dev.bothy.wire.config.SyncConfig;
import io.dropwizard.jackson.Jackson;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PurgeOptions;
import io.nats.client.api.ConsumerInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The bus dispatch benchmark ({@code bench/run.sh bus-dispatch}): events per second through one bus
 * consumer with a no-op handler, on each transport with 1 and 2 worker processes, side by side with
 * the ceilings that bound it on the same embedded PostgreSQL 18 and the same bench-owned
 * nats-server; then the latency from an append's commit to the handler at 200 events/s.
 *
 * <p>The worker processes are real processes: child JVMs running the application as {@code worker}
 * ({@code dev.bothy.wire.BusProbeWorker} in {@code noop} mode, the default configuration but for
 * the database, a free admin port and, on NATS, {@code bus.nats.url}), each with its own pool, job
 * runtime and consumer runner, as an installation runs them. They share the machine's cores with
 * PostgreSQL, nats-server and the ceilings.
 *
 * <p>Transports ({@code -Dbench.transports}, default {@code log,nats}):
 *
 * <ul>
 *   <li>{@code log}: the events are appended while the workers run; the worker consumer {@code bus}
 *       queues {@code bus.dispatch} jobs. Ceiling: pgbench with 10 clients per process running the
 *       delivery-row transaction with the job's completion ({@code ceiling-cN}).
 *   <li>{@code nats}: the stream is filled first by a relay in this JVM, with no consumer of the
 *       probe's durable (D-NB-1), so the rate is the handlers' and not the relay's; the relay's own
 *       rate goes to stderr. One pull loop per process (the runner dispatches a fetch's messages
 *       one after the other), so the ceilings run at 1 per process: pgbench running the
 *       delivery-row transaction alone ({@code ceiling-nats-cN}, D-NB-2) and a raw jnats loop per
 *       process on its own connection, pulling with the same fetch batch and acking each message,
 *       over the same stream contents ({@code jnats-Pp}).
 * </ul>
 *
 * <p>Prints {@code variant<TAB>seconds} rows ({@code events} events per sample) on stdout and the
 * comparison on stderr.
 */
public final class BusDispatchBench {
  private static final String HANDLER = "probe.effect";
  private static final String DURABLE = "probe_main";
  private static final String CEILING_DURABLE = "bench_ceiling";
  private static final String WORKER_MAIN = "dev.bothy.wire.BusProbeWorker";
  private static final Duration START = Duration.ofSeconds(120);
  private static final Duration DRAIN = Duration.ofMinutes(10);

  /**
   * A warm-up pass of the log rows ends the warm-up once the worker processes' compilers used less
   * than this share of the machine during it (D-NB-7), as in the webhooks benchmark (D-WF-4).
   */
  private static final double QUIET_JIT = 0.05;

  private static final int APPEND_UNIT = 1000;
  private static final int CEILING_JOBS = 200_000;
  private static final int LATENCY_RATE = 200;
  private static final List<String> TRANSPORTS = List.of("log", "nats");

  /**
   * The CPU time per event of each NATS ceiling, in nanoseconds, per variant and sample: together
   * they bound what any consumer doing both ceilings' work on these cores can reach (D-BD-8).
   */
  private static final Map<String, List<Double>> CPU_PER_EVENT = new LinkedHashMap<>();

  /**
   * The ceiling of the log transport, per event what one dispatch writes and commits (Dispatch,
   * DispatchJob, the job runtime): the delivery row inserted with ON CONFLICT DO NOTHING, and the
   * job's completion, one running bus job found with SKIP LOCKED (as the fetch finds it) and marked
   * completed. All in one transaction: Bothy commits the delivery row with the handler and
   * completes jobs in batches in a transaction of the completer, and also reads the event and
   * checks for an open dead letter, which the ceiling leaves out; so it is an upper bound.
   */
  private static final String CEILING_SCRIPT =
      "BEGIN;\n"
          + "INSERT INTO event_deliveries (handler, event_id, handled_at) VALUES ('"
          + HANDLER
          + "', gen_random_uuid(), now()) ON CONFLICT DO NOTHING;\n"
          + "UPDATE jobs SET state = 'completed', finalized_at = now() WHERE id = (SELECT id FROM"
          + " jobs WHERE state = 'running' LIMIT 1 FOR UPDATE SKIP LOCKED);\n"
          + "COMMIT;\n";

  /**
   * The database ceiling of the NATS transport (D-NB-2): the handler's unit alone, the delivery row
   * (the unit's timeouts are set once per connection, ADR 0028, as pgbench's session has its own).
   * On NATS the event comes in the message and there is no job; Bothy's unit also checks for an
   * open dead letter, which this leaves out, so it is an upper bound.
   */
  private static final String NATS_CEILING_SCRIPT =
      "BEGIN;\n"
          + "INSERT INTO event_deliveries (handler, event_id, handled_at) VALUES ('"
          + HANDLER
          + "', gen_random_uuid(), now()) ON CONFLICT DO NOTHING;\n"
          + "COMMIT;\n";

  private BusDispatchBench() {}

  /**
   * Runs the benchmark and exits: 0 when it ran through, 1 on any failure (a missing delivery row,
   * a wait that timed out, a failed relay), so that no thread of a NATS connection keeps the JVM.
   *
   * @param args samples per variant, events per sample, seconds of the latency phase
   */
  public static void main(String[] args) {
    int status = 0;
    try {
      run(args);
    } catch (Throwable t) {
      System.err.println("bus-dispatch: failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.err.flush();
    System.exit(status);
  }

  private static void run(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int latencySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
    int warmupPasses = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    if (warmupPasses < 1) {
      throw new IllegalArgumentException("warm-up passes must be one or more");
    }
    int[] processes = BenchSupport.ints("bench.processes", 1, 2);
    List<String> transports =
        List.of(System.getProperty("bench.transports", "log,nats").split(",")).stream()
            .map(String::trim)
            .toList();
    for (String transport : transports) {
      if (!TRANSPORTS.contains(transport)) {
        throw new IllegalArgumentException(
            "unknown transport " + transport + " in bench.transports; built: " + TRANSPORTS);
      }
    }
    int perProcess = JobsConfig.BUS_QUEUE_WORKERS;
    Path dir = Files.createTempDirectory("bothy-bench-bus-dispatch");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    Map<String, String> latency = new LinkedHashMap<>();
    NatsServer nats = transports.contains("nats") ? NatsServer.jetStream() : null;
    BusModule bus = null;
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      // The worker processes' start checks the instance record, which db migrate writes.
      PgExtension.recordInstance(server.superuserDataSource());
      if (nats != null) {
        nats.start();
        bus = connect(nats);
      }
      try (HikariDataSource pool = BenchSupport.pool(server, 2)) {
        EventLogFixture log = new EventLogFixture(pool);
        for (int run = 1; run <= runs; run++) {
          System.err.printf("bus-dispatch: run %d of %d%n", run, runs);
          for (int p : processes) {
            for (String transport : transports) {
              String variant = transport + "-" + p + "p";
              if (transport.equals("log")) {
                int concurrency = p * perProcess;
                clear(server);
                fillRunningJobs(server);
                BenchSupport.Steady ceiling =
                    BenchSupport.pgbenchSteady(server, dir, CEILING_SCRIPT, concurrency, 3, 5);
                if (ceiling.transactions() >= CEILING_JOBS) {
                  throw new IllegalStateException(
                      "the ceiling ran out of running jobs to complete");
                }
                BenchSupport.record(samples, "ceiling-c" + concurrency, events / ceiling.tps());
                clear(server);
                skipConsumers(
                    server, scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log"));
                Workers workers = Workers.start(server, dir, p, null);
                try {
                  // Warm-up, unrecorded: the children's JIT and pools, passes of as many events
                  // as the sample until their compilers are quiet (D-NB-7, as the webhooks
                  // benchmark's D-WF-4); after one such pass they still used a fifth of the
                  // machine through the sample.
                  BenchSupport.warmUp(
                      "bus-dispatch",
                      warmupPasses,
                      QUIET_JIT,
                      workers::compilerNanos,
                      () -> drain(server, log, events));
                  long[] jit = workers.compilerSnapshot();
                  double seconds = drain(server, log, events);
                  workers.printCompilerShare(jit);
                  BenchSupport.record(samples, variant, seconds);
                  workers.printCpu(2 * events);
                  if (run == runs) {
                    latency.put(variant, latency(server, log, latencySeconds));
                  }
                } finally {
                  workers.stop();
                }
              } else {
                natsSample(
                    server,
                    dir,
                    log,
                    nats,
                    bus,
                    p,
                    events,
                    run == runs ? latencySeconds : 0,
                    samples,
                    latency);
              }
            }
          }
        }
      }
    } finally {
      if (bus != null) {
        bus.close();
      }
      if (nats != null) {
        nats.close();
      }
      BenchSupport.deleteTree(dir);
    }
    report(samples, latency, transports, processes, perProcess, events, latencySeconds);
  }

  private static void report(
      Map<String, List<Double>> samples,
      Map<String, String> latency,
      List<String> transports,
      int[] processes,
      int perProcess,
      int events,
      int latencySeconds) {
    System.err.println();
    System.err.println(
        "| transport | worker processes | concurrency | pgbench ceiling events/s |"
            + " jnats ceiling events/s | Bothy events/s | Bothy / pgbench | Bothy / jnats |"
            + " Bothy / lower ceiling |");
    System.err.println("|---|---|---|---|---|---|---|---|---|");
    for (String transport : transports) {
      for (int p : processes) {
        boolean onNats = transport.equals("nats");
        int concurrency = onNats ? p : p * perProcess;
        double pg =
            BenchSupport.rate(
                samples, (onNats ? "ceiling-nats-c" : "ceiling-c") + concurrency, events);
        double jnats = onNats ? BenchSupport.rate(samples, "jnats-" + p + "p", events) : 0;
        double bothy = BenchSupport.rate(samples, transport + "-" + p + "p", events);
        double lower = onNats ? Math.min(pg, jnats) : pg;
        System.err.printf(
            "| %s | %d | %d | %.0f | %s | %.0f | %.2f | %s | %.2f |%n",
            transport,
            p,
            concurrency,
            pg,
            onNats ? String.format("%.0f", jnats) : "-",
            bothy,
            bothy / pg,
            onNats ? String.format("%.2f", bothy / jnats) : "-",
            bothy / lower);
      }
    }
    if (transports.contains("nats")) {
      sharedMachineBound(samples, processes, events);
    }
    System.err.println();
    System.err.printf(
        "commit-to-handler latency at %d events/s, %d s (ms):%n", LATENCY_RATE, latencySeconds);
    System.err.println("| variant | events | p50 | p99 | max |");
    System.err.println("|---|---|---|---|---|");
    latency.forEach((variant, row) -> System.err.printf("| %s | %s |%n", variant, row));
  }

  /**
   * The CPU bound of the NATS rows (D-BD-8): a NATS consumer does the work of both ceilings for
   * each event, the delivery-row transaction in PostgreSQL and the pull and ack in nats-server, on
   * the same cores. The pgbench ceiling's CPU per event is the machine's busy time over its rate,
   * the jnats ceiling's the CPU of its loops and of nats-server per measured message; the two added
   * bound a consumer's rate at about {@code cores / (cpuPg + cpuJnats)}. An estimate: both sides
   * include client CPU (pgbench's; this whole JVM's) that a consumer spends in its own way. A row
   * whose bound is under 0.70 of its lower ceiling cannot meet issue 19's goal on this machine.
   */
  private static void sharedMachineBound(
      Map<String, List<Double>> samples, int[] processes, int events) {
    int cores = Runtime.getRuntime().availableProcessors();
    System.err.println();
    System.err.println(
        "NATS: the CPU bound of doing both ceilings' work on the same "
            + cores
            + " cores (D-BD-8):");
    System.err.println(
        "| worker processes | pgbench ceiling events/s | its CPU us per event | jnats ceiling"
            + " events/s | its CPU us per message | bound events/s | bound / lower ceiling |");
    System.err.println("|---|---|---|---|---|---|---|");
    for (int p : processes) {
      double pg = BenchSupport.rate(samples, "ceiling-nats-c" + p, events);
      double jnats = BenchSupport.rate(samples, "jnats-" + p + "p", events);
      List<Double> pgCpu = CPU_PER_EVENT.get("ceiling-nats-c" + p);
      List<Double> jCpu = CPU_PER_EVENT.get("jnats-" + p + "p");
      if (pgCpu == null || jCpu == null) {
        continue;
      }
      double pgNanos = BenchSupport.median(pgCpu);
      double jNanos = BenchSupport.median(jCpu);
      double bound = cores * 1e9 / (pgNanos + jNanos);
      System.err.printf(
          "| %d | %.0f | %.1f | %.0f | %.1f | %.0f | %.2f |%n",
          p, pg, pgNanos / 1000, jnats, jNanos / 1000, bound, bound / Math.min(pg, jnats));
    }
  }

  /**
   * One NATS sample with {@code p} worker processes (D-NB-1): the relay of this JVM catches up with
   * the log (the log transport's events included), the stream is purged but for its last message
   * (the relay checks that one is still there), every durable on the stream is deleted and the
   * worker consumers' cursors move to the head; then a warm-up as large as the sample (D-NC-5) and
   * the sample are appended and relayed while no consumer pulls. On those stream contents run
   * pgbench's ceiling at {@code p} clients, the raw jnats loop with {@code p} connections, and the
   * worker processes, which create the durable at their start (deliver policy all: from the kept
   * message) and drain it. The relay keeps running for the latency phase, where it is part of the
   * path; the workers' relays stand by.
   */
  private static void natsSample(
      EmbeddedPostgresServer server,
      Path dir,
      EventLogFixture log,
      NatsServer nats,
      BusModule bus,
      int p,
      int events,
      int latencySeconds,
      Map<String, List<Double>> samples,
      Map<String, String> latency)
      throws Exception {
    String variant = "nats-" + p + "p";
    clear(server);
    JetStreamManagement jsm = bus.management();
    // Every durable of the last sample (the probe's, the ceiling's, and the other modules' bus
    // consumers the workers declared, such as system_echo): each sample's start from the same
    // stream contents.
    for (String durable : jsm.getConsumerNames(Streams.EVENTS)) {
      jsm.deleteConsumer(Streams.EVENTS, durable);
    }
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    Relay relay = relay(server, nats, bus, log, fatal);
    relay.start();
    try {
      awaitRelayed(server, fatal, scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log"));
      jsm.purgeStream(Streams.EVENTS, PurgeOptions.builder().keep(1).build());
      long kept = jsm.getStreamInfo(Streams.EVENTS).getStreamState().getMsgCount();
      // As many warm-up events as the sample (D-NC-5): with a quarter, the worker JVMs were still
      // compiling (C2) through the sample, two of them on 2 cores at 2 processes.
      int warm = events;
      long beforeWarm = scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log");
      skipConsumers(server, beforeWarm);
      UUID user = UUID.randomUUID();
      long began = System.nanoTime();
      for (int done = 0; done < warm + events; done += APPEND_UNIT) {
        log.append(user, Math.min(APPEND_UNIT, warm + events - done));
      }
      long appended = System.nanoTime();
      long head = scalar(server, "SELECT max(seq) FROM event_log");
      awaitRelayed(server, fatal, head);
      long relayed = System.nanoTime();
      long inStream = jsm.getStreamInfo(Streams.EVENTS).getStreamState().getMsgCount();
      if (inStream != kept + warm + events) {
        throw new IllegalStateException(
            "the stream holds " + inStream + " messages, expected " + (kept + warm + events));
      }
      System.err.printf(
          "bus-dispatch: nats pre-fill: %d events appended in %.2f s, relayed by %.2f s (relay"
              + " at least %.0f events/s while appends ran)%n",
          warm + events,
          (appended - began) / 1e9,
          (relayed - began) / 1e9,
          (warm + events) / ((relayed - began) / 1e9));
      long beforeMeasured = beforeWarm + warm;
      long[] busy = BenchSupport.machineJiffies();
      BenchSupport.Steady ceiling =
          BenchSupport.pgbenchSteady(server, dir, NATS_CEILING_SCRIPT, p, 3, 5);
      // Whether the ceiling is bound by the cores or by round trips: one client leaves most of
      // the machine idle, waiting on each statement's round trip.
      double pgBusy = BenchSupport.busyShare(busy);
      System.err.printf(
          "bus-dispatch: machine busy %.0f percent while the pgbench ceiling ran at %d clients%n",
          pgBusy * 100, p);
      BenchSupport.record(samples, "ceiling-nats-c" + p, events / ceiling.tps());
      // The machine's time per event: PostgreSQL's backends, its autovacuum and pgbench.
      CPU_PER_EVENT
          .computeIfAbsent("ceiling-nats-c" + p, v -> new ArrayList<>())
          .add(pgBusy * Runtime.getRuntime().availableProcessors() * 1e9 / ceiling.tps());
      clear(server);
      BenchSupport.record(
          samples, "jnats-" + p + "p", jnatsCeiling(nats, bus, p, (int) kept + warm, events));
      Workers workers = Workers.start(server, dir, p, nats.url());
      Instant allStarted = Instant.now();
      try {
        long[] startedTicks = workers.cpuTicks();
        long handledAtStart = scalar(server, "SELECT count(*) FROM event_deliveries");
        awaitHandled(server, beforeWarm, warm, false);
        long[] jit = workers.compilerSnapshot();
        awaitHandled(server, beforeWarm, warm + events, true);
        workers.printCompilerShare(jit);
        workers.printCpuSince(startedTicks, warm + events - handledAtStart);
        double seconds = window(server, beforeMeasured, events, allStarted);
        ConsumerInfo info = jsm.getConsumerInfo(Streams.EVENTS, DURABLE);
        System.err.printf(
            "bus-dispatch: %s %d events, steady %.0f events/s; durable redelivered %d%n",
            variant, events, events / seconds, info.getRedelivered());
        BenchSupport.record(samples, variant, seconds);
        workers.printCpu(warm + events);
        if (latencySeconds > 0) {
          latency.put(variant, latency(server, log, latencySeconds));
        }
      } finally {
        workers.stop();
      }
    } finally {
      relay.stop(Duration.ofSeconds(10));
    }
    if (fatal.get() != null) {
      throw new IllegalStateException("the relay failed", fatal.get());
    }
  }

  /** Connects to the bench's nats-server as the bus start step does and declares the streams. */
  private static BusModule connect(NatsServer nats) throws Exception {
    BusModule module = new BusModule(busSettings(nats));
    module.connect();
    NatsStreams.ensure(module.management(), module.events(), true);
    return module;
  }

  /** The default {@code bus} settings with the bench's nats-server. */
  private static BusModule.Settings busSettings(NatsServer nats) throws Exception {
    return Jackson.newObjectMapper()
        .readValue("{\"nats\":{\"url\":\"" + nats.url() + "\"}}", BusConfig.class)
        .settings(new SyncConfig(), "bothy-bench")
        .orElseThrow();
  }

  /** A relay built as {@code BusModule.startRelay} builds it, with the default settings. */
  private static Relay relay(
      EmbeddedPostgresServer server,
      NatsServer nats,
      BusModule bus,
      EventLogFixture log,
      AtomicReference<Throwable> fatal)
      throws Exception {
    var settings = busSettings(nats).relay();
    return new Relay(
        new Relay.Settings(
            Streams.EVENTS,
            Streams::subjectOf,
            settings.batchSize(),
            settings.window(),
            settings.pollInterval(),
            settings.publishAckTimeout(),
            settings.leaseTimeout(),
            DatabaseConfig.DEFAULT_LISTEN_RECONNECT_BACKOFF_CAP.toJavaDuration()),
        log.uow,
        log.log,
        bus.connection(),
        new Relay.Connections(
            connection(server, Relay.LEASE_APPLICATION_NAME),
            connection(server, Relay.LISTEN_APPLICATION_NAME)),
        RelayMetrics.NONE,
        RelayTracer.NONE,
        Clock.system(),
        fatal::set);
  }

  private static PoolSettings connection(EmbeddedPostgresServer server, String applicationName) {
    return new PoolSettings(
        BenchSupport.url(server), "bothy_app", null, 1, Duration.ofSeconds(5), applicationName);
  }

  /** Waits until the relay's cursor reaches {@code head}. */
  private static void awaitRelayed(
      EmbeddedPostgresServer server, AtomicReference<Throwable> fatal, long head) throws Exception {
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (scalar(server, "SELECT coalesce(max(last_seq), 0) FROM bus_relay_cursors") < head) {
      if (fatal.get() != null) {
        throw new IllegalStateException("the relay failed", fatal.get());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the relay did not reach " + head + " in " + DRAIN);
      }
      Thread.sleep(50);
    }
  }

  /**
   * The raw jnats ceiling: a durable declared as the probe's ({@link
   * NatsConsumerRunner#configuration}, the default {@code bus.consumers} settings), {@code p} loops
   * on their own connections, each pulling {@code bus.consumers.fetchBatch} messages with {@code
   * bus.consumers.fetchWait} and acking each with {@code ack()}, as the dispatcher answers. The
   * first {@code warm} messages are the warm-up; returns the seconds for {@code n} messages at the
   * rate between the 10th and 90th percentile of the rest's ack times, as Bothy's rows are timed.
   */
  private static double jnatsCeiling(NatsServer nats, BusModule bus, int p, int warm, int n)
      throws Exception {
    BusConsumerSettings settings = new BusConsumersConfig().settings();
    BusConsumer consumer =
        new BusConsumer(
            CEILING_DURABLE,
            List.of(
                BusHandler.of("bench.ceiling", EventTypes.SETTINGS_UPDATED, (tx, e, at) -> {})));
    String version = bus.connection().getServerInfo().getVersion();
    ConsumerFilters filters =
        ConsumerFilters.of(
            version,
            List.of(EventTypes.SETTINGS_UPDATED.name()),
            Streams.EVENT_SUBJECTS,
            Streams::subjectOf);
    JetStreamManagement jsm = bus.management();
    jsm.addOrUpdateConsumer(
        Streams.EVENTS, NatsConsumerRunner.configuration(consumer, filters, settings));
    int total = warm + n;
    long[] at = new long[total];
    AtomicInteger done = new AtomicInteger();
    AtomicReference<long[]> measuredFrom = new AtomicReference<>(new long[] {-1, -1});
    AtomicReference<Double> measuredCpu = new AtomicReference<>(Double.NaN);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    long deadline = System.nanoTime() + DRAIN.toNanos();
    for (int i = 0; i < p; i++) {
      Thread t =
          new Thread(
              () -> {
                io.nats.client.Connection c = null;
                try {
                  c = Nats.connect(nats.url());
                  ConsumerContext ctx = c.getConsumerContext(Streams.EVENTS, CEILING_DURABLE);
                  FetchConsumeOptions options =
                      FetchConsumeOptions.builder()
                          .maxMessages(settings.fetchBatch())
                          .expiresIn(settings.fetchWait().toMillis())
                          .build();
                  while (done.get() < total && System.nanoTime() < deadline) {
                    FetchConsumer fetch = ctx.fetch(options);
                    try {
                      Message m = fetch.nextMessage();
                      while (m != null) {
                        m.ack();
                        int k = done.incrementAndGet();
                        if (k <= total) {
                          at[k - 1] = System.nanoTime();
                        }
                        // The CPU of the measured messages only, of this JVM (the loops) and of
                        // nats-server: the machine's busy share also counted PostgreSQL's
                        // autovacuum after the pgbench ceiling, 8 to 79 percent for one loop.
                        if (k == warm + 1) {
                          measuredFrom.set(jnatsCpuNanos(nats));
                        } else if (k == total) {
                          long[] from = measuredFrom.get();
                          long[] to = jnatsCpuNanos(nats);
                          if (from[1] >= 0 && to[1] >= 0) {
                            measuredCpu.set(
                                (double) (to[0] - from[0] + to[1] - from[1]) / (total - warm - 1));
                          }
                        }
                        m = fetch.nextMessage();
                      }
                    } finally {
                      fetch.close();
                    }
                  }
                  // The acks went out without waiting; closing the connection does not wait for
                  // them either, and the last ones were lost now and then (4 left pending).
                  c.flush(Duration.ofSeconds(10));
                } catch (Throwable e) {
                  failed.compareAndSet(null, e);
                } finally {
                  if (c != null) {
                    try {
                      c.close();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                }
              },
              "bench-jnats-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failed.get() != null) {
      throw new IllegalStateException("the jnats ceiling failed", failed.get());
    }
    if (done.get() != total) {
      throw new IllegalStateException(
          "the jnats ceiling acked " + done.get() + " messages, expected " + total);
    }
    // The acks are sent without waiting: wait until the server has them all.
    long ackDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    ConsumerInfo info = jsm.getConsumerInfo(Streams.EVENTS, CEILING_DURABLE);
    while (info.getNumAckPending() > 0 || info.getNumPending() > 0) {
      if (System.nanoTime() > ackDeadline) {
        throw new IllegalStateException("the jnats ceiling left messages unanswered: " + info);
      }
      Thread.sleep(50);
      info = jsm.getConsumerInfo(Streams.EVENTS, CEILING_DURABLE);
    }
    jsm.deleteConsumer(Streams.EVENTS, CEILING_DURABLE);
    long[] measured = java.util.Arrays.copyOfRange(at, warm, total);
    java.util.Arrays.sort(measured);
    double seconds = (measured[(int) (n * 0.9)] - measured[(int) (n * 0.1)]) / 1e9 / 0.8;
    System.err.printf(
        "bus-dispatch: jnats-%dp %d messages, steady %.0f messages/s; %.1f us of CPU per message"
            + " (the loops' JVM and nats-server)%n",
        p, n, n / seconds, measuredCpu.get() / 1000);
    CPU_PER_EVENT
        .computeIfAbsent("jnats-" + p + "p", v -> new ArrayList<>())
        .add(measuredCpu.get());
    return seconds;
  }

  /** CPU nanoseconds so far of this JVM and of the nats-server process (-1 where unreadable). */
  private static long[] jnatsCpuNanos(NatsServer nats) {
    long jvm =
        ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    try {
      return new long[] {
        jvm,
        BenchSupport.cpuTicks(Path.of("/proc", Long.toString(nats.pid()), "stat")) * 10_000_000L
      };
    } catch (java.io.IOException | RuntimeException e) {
      return new long[] {jvm, -1};
    }
  }

  /**
   * Waits until {@code n} events after {@code before} have their delivery rows; when {@code exact},
   * the last of them, checks that no more rows than events were written.
   */
  private static void awaitHandled(EmbeddedPostgresServer server, long before, int n, boolean exact)
      throws Exception {
    String handled =
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE e.seq > "
            + before;
    long deadline = System.nanoTime() + DRAIN.toNanos();
    // One connection for the whole wait, as in drain.
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      while (scalar(st, "SELECT count(*) FROM event_deliveries") < n || scalar(st, handled) < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the workers did not handle " + n + " events in " + DRAIN);
        }
        Thread.sleep(100);
      }
    }
    if (exact && scalar(server, handled) != n) {
      throw new IllegalStateException(
          "delivery rows differ from events: " + scalar(server, handled));
    }
  }

  /**
   * The seconds for {@code n} events at the rate of the events after {@code before}, between the
   * 10th and the 90th percentile of their delivery times, or from the moment the last worker
   * process was seen started when that is later (on NATS the stream is full before the workers
   * start, so the first one could run alone for a while): the events handled in that span over its
   * length.
   */
  private static double window(EmbeddedPostgresServer server, long before, int n, Instant started)
      throws Exception {
    String from =
        " FROM event_deliveries d JOIN event_log e ON e.id = d.event_id WHERE e.seq > " + before;
    double p10 =
        decimal(
            server,
            "SELECT extract(epoch FROM percentile_disc(0.1) WITHIN GROUP (ORDER BY d.handled_at))"
                + from);
    double p90 =
        decimal(
            server,
            "SELECT extract(epoch FROM percentile_disc(0.9) WITHIN GROUP (ORDER BY d.handled_at))"
                + from);
    double start = Math.max(p10, started.toEpochMilli() / 1000.0);
    if (start >= p90) {
      throw new IllegalStateException(
          "the last worker process started after 90% of the sample was handled; raise"
              + " BENCH_EVENTS");
    }
    long inSpan =
        scalar(
            server,
            "SELECT count(*)"
                + from
                + " AND d.handled_at >= to_timestamp("
                + start
                + ") AND d.handled_at <= to_timestamp("
                + p90
                + ")");
    double rate = inSpan / (p90 - start);
    if (start > p10) {
      System.err.printf(
          "bus-dispatch: the window starts %.2f s after the 10th percentile, when the last"
              + " worker process was up%n",
          start - p10);
    }
    return n / rate;
  }

  /**
   * Moves every worker consumer's cursor forward to {@code seq} (no worker process runs at this
   * point): the events of the other transport's samples are none of this sample's work. Without it
   * the log transport's consumer {@code bus} would queue jobs for the events the NATS samples
   * appended, and the other worker consumers of a worker process (the webhooks' fan-out, say) would
   * catch up on them during the sample; so both transports' workers see only their sample's events.
   */
  private static void skipConsumers(EmbeddedPostgresServer server, long seq) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("UPDATE event_consumer_cursors SET last_seq = greatest(last_seq, " + seq + ")");
    }
  }

  /** Empties the tables dispatch writes, so every sample starts alike. */
  private static void clear(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE jobs, event_deliveries");
      st.execute("VACUUM ANALYZE jobs");
      st.execute("VACUUM ANALYZE event_deliveries");
    }
  }

  /** Running bus jobs for the ceiling to complete, more than it can complete in its run. */
  private static void fillRunningJobs(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts, priority,"
              + " scheduled_at, attempted_at, attempted_by, created_at) SELECT gen_random_uuid(),"
              + " 'bus.dispatch', 'bus', jsonb_build_object('eventId', gen_random_uuid()),"
              + " 'running', 1, 10, 1, now(), now(), 'pgbench', now() FROM generate_series(1, "
              + CEILING_JOBS
              + ")");
      st.execute("VACUUM ANALYZE jobs");
    }
  }

  /**
   * Appends {@code n} events in units of {@link #APPEND_UNIT} and waits until every one is handled;
   * returns the seconds for {@code n} events at the rate between the 10th and the 90th percentile
   * of their delivery times ({@code event_deliveries.handled_at}), which leaves out the first round
   * of the worker consumer and the last batch of completions, as pgbench's rate leaves out its
   * warm-up. The wall time from the first append to the last completion goes to stderr.
   */
  private static double drain(EmbeddedPostgresServer server, EventLogFixture log, int n)
      throws Exception {
    long before = scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log");
    long began = System.nanoTime();
    UUID user = UUID.randomUUID();
    for (int done = 0; done < n; done += APPEND_UNIT) {
      log.append(user, Math.min(APPEND_UNIT, n - done));
    }
    long head = scalar(server, "SELECT max(seq) FROM event_log");
    // Cheap polls, since they share the machine with the workers: the cursor of the worker
    // consumer bus, then whether any job is still to run, each state group through its partial
    // index (a count of them took 140 ms per poll over a sample's churned rows, and cost the log
    // rows about a quarter of their rate, D-BD-8); the delivery rows are counted once at the end.
    // The rate comes from the delivery times, so the poll's pace only moves the wall time.
    String cursor =
        "SELECT coalesce(max(last_seq), 0) FROM event_consumer_cursors WHERE name = 'bus'";
    String pending =
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE state IN ('available', 'scheduled',"
            + " 'retryable')) OR EXISTS (SELECT 1 FROM jobs WHERE state = 'running') THEN 1"
            + " ELSE 0 END";
    long deadline = System.nanoTime() + DRAIN.toNanos();
    // One connection for the whole wait: the data source is unpooled, and a new backend per poll
    // costs PostgreSQL more than the poll itself.
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      while (scalar(st, cursor) < head || scalar(st, pending) > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the workers did not handle " + n + " events in " + DRAIN);
        }
        Thread.sleep(100);
      }
    }
    String handled =
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE e.seq > "
            + before;
    double wall = (System.nanoTime() - began) / 1e9;
    if (scalar(server, handled) != n) {
      throw new IllegalStateException(
          "delivery rows differ from events: " + scalar(server, handled));
    }
    double window =
        decimal(
            server,
            "SELECT extract(epoch FROM percentile_disc(0.9) WITHIN GROUP (ORDER BY d.handled_at)"
                + " - percentile_disc(0.1) WITHIN GROUP (ORDER BY d.handled_at))"
                + " FROM event_deliveries d JOIN event_log e ON e.id = d.event_id WHERE e.seq > "
                + before);
    double seconds = window / 0.8;
    System.err.printf(
        "bus-dispatch: %d events, steady %.0f events/s, wall %.2f s (%.0f events/s)%n",
        n, n / seconds, wall, n / wall);
    return seconds;
  }

  /**
   * Appends one event every 5 ms for {@code seconds} and returns "events | p50 | p99 | max" of the
   * time from the return of the appending unit's {@code run} (after its commit) to the handler's
   * delivery time, both wall clocks of this machine.
   */
  private static String latency(EmbeddedPostgresServer server, EventLogFixture log, int seconds)
      throws Exception {
    long before = scalar(server, "SELECT coalesce(max(seq), 0) FROM event_log");
    Map<UUID, Instant> committed = new LinkedHashMap<>();
    long period = TimeUnit.SECONDS.toNanos(1) / LATENCY_RATE;
    int total = seconds * LATENCY_RATE;
    long start = System.nanoTime();
    UUID user = UUID.randomUUID();
    for (int i = 0; i < total; i++) {
      long due = start + i * period;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      List<UUID> ids = log.uow.run(() -> log.appender.append(EventLogFixture.drafts(user, 1)));
      committed.put(ids.get(0), Instant.now());
    }
    String handled =
        "SELECT count(*) FROM event_deliveries d JOIN event_log e ON e.id = d.event_id"
            + " WHERE e.seq > "
            + before;
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (scalar(server, handled) < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the latency phase's events were not all handled");
      }
      Thread.sleep(50);
    }
    List<Double> millis = new ArrayList<>();
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT d.event_id, d.handled_at FROM event_deliveries d JOIN event_log e"
                    + " ON e.id = d.event_id WHERE e.seq > "
                    + before)) {
      while (rs.next()) {
        Instant at = rs.getObject(2, java.time.OffsetDateTime.class).toInstant();
        Instant commit = committed.get(rs.getObject(1, UUID.class));
        millis.add(Duration.between(commit, at).toNanos() / 1e6);
      }
    }
    millis.sort(null);
    return String.format(
        "%d | %.1f | %.1f | %.1f",
        millis.size(),
        millis.get(millis.size() / 2),
        millis.get((int) Math.ceil(millis.size() * 0.99) - 1),
        millis.get(millis.size() - 1));
  }

  private static long scalar(EmbeddedPostgresServer server, String sql) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      return scalar(st, sql);
    }
  }

  private static long scalar(Statement st, String sql) throws Exception {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static double decimal(EmbeddedPostgresServer server, String sql) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getDouble(1);
    }
  }

  /** The worker processes of one sample. */
  private record Workers(List<Process> processes, List<Path> outputs, String startedStep) {
    /**
     * Starts {@code count} worker processes; with {@code natsUrl} on the NATS transport (then the
     * start is done at the step {@code bus_nats_consumers}), without it on the log.
     */
    static Workers start(EmbeddedPostgresServer server, Path dir, int count, String natsUrl)
        throws Exception {
      Path config = dir.resolve("worker.yml");
      Files.writeString(
          config,
          "database:\n  url: "
              + BenchSupport.url(server)
              + "\nlogging:\n  level: INFO\n"
              + "server:\n  adminConnectors:\n    - type: http\n      port: 0\n"
              + (natsUrl == null ? "" : "bus:\n  nats:\n    url: " + natsUrl + "\n"));
      List<Process> processes = new ArrayList<>();
      List<Path> outputs = new ArrayList<>();
      Workers workers =
          new Workers(
              processes,
              outputs,
              natsUrl == null ? "step=event_consumers" : "step=bus_nats_consumers");
      try {
        for (int i = 0; i < count; i++) {
          Path output = Files.createTempFile(dir, "worker", ".log");
          List<String> command =
              new ArrayList<>(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-Dliquibase.analytics.enabled=false",
                      "-Dbothy.test.probe.mode=noop",
                      "-Dbothy.test.probe.worker=w" + i));
          command.addAll(
              List.of(System.getProperty("bench.workerJavaOpts", "").split(";")).stream()
                  .filter(s -> !s.isBlank())
                  .toList());
          command.addAll(
              List.of(
                  "-cp",
                  System.getProperty("java.class.path"),
                  WORKER_MAIN,
                  "worker",
                  config.toString()));
          processes.add(
              new ProcessBuilder(command)
                  .redirectErrorStream(true)
                  .redirectOutput(output.toFile())
                  .start());
          outputs.add(output);
        }
        for (int i = 0; i < count; i++) {
          workers.awaitStarted(i);
        }
        return workers;
      } catch (Exception e) {
        workers.stop();
        throw e;
      }
    }

    private void awaitStarted(int i) throws Exception {
      long deadline = System.nanoTime() + START.toNanos();
      while (true) {
        String out = Files.readString(outputs.get(i), StandardCharsets.UTF_8);
        if (out.contains("start step done: " + startedStep + " ")
            && out.contains("org.eclipse.jetty.server.Server: Started")) {
          return;
        }
        if (!processes.get(i).isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("worker process " + i + " did not start:\n" + out);
        }
        Thread.sleep(50);
      }
    }

    /** CPU per 1,000 events of each worker process so far, from /proc. */
    void printCpu(int events) {
      for (Process p : processes) {
        try {
          long ticks = BenchSupport.cpuTicks(Path.of("/proc", Long.toString(p.pid()), "stat"));
          System.err.printf(
              "bus-dispatch: worker pid %d CPU %.1f ms per 1,000 events (JVM start included)%n",
              p.pid(), ticks * 10.0 / events * 1000);
        } catch (IOException | RuntimeException e) {
          System.err.println("bus-dispatch: no CPU figure for worker pid " + p.pid());
        }
      }
    }

    /**
     * The CPU ticks (user and system, 10 ms each) each worker process used so far, from /proc; -1
     * where it cannot be read.
     */
    long[] cpuTicks() {
      long[] ticks = new long[processes.size()];
      for (int i = 0; i < ticks.length; i++) {
        try {
          ticks[i] =
              BenchSupport.cpuTicks(
                  Path.of("/proc", Long.toString(processes.get(i).pid()), "stat"));
        } catch (IOException | RuntimeException e) {
          ticks[i] = -1;
        }
      }
      return ticks;
    }

    /**
     * CPU per 1,000 events of each worker process and of all of them since {@code before} (taken
     * once every process was up), over the {@code events} handled since: the steady cost of a
     * dispatch, JVM start left out.
     */
    void printCpuSince(long[] before, long events) {
      long[] now = cpuTicks();
      long total = 0;
      for (int i = 0; i < now.length; i++) {
        if (before[i] < 0 || now[i] < 0 || events <= 0) {
          System.err.println("bus-dispatch: no CPU figure since the start of the sample");
          return;
        }
        total += now[i] - before[i];
        System.err.printf(
            "bus-dispatch: worker pid %d CPU %.1f ms per 1,000 events since all were up%n",
            processes.get(i).pid(), (now[i] - before[i]) * 10.0 / events * 1000);
      }
      System.err.printf(
          "bus-dispatch: all %d worker processes CPU %.1f ms per 1,000 events since all were up"
              + " (%d events)%n",
          now.length, total * 10.0 / events * 1000, events);
    }

    /**
     * The CPU nanoseconds the JIT compiler threads of every worker process used so far, or -1 where
     * one cannot be read.
     */
    long compilerNanos() {
      return compilerSnapshot()[0];
    }

    /** The JIT compiler threads' CPU of every worker process so far, and the time. */
    long[] compilerSnapshot() {
      long total = 0;
      for (Process p : processes) {
        long nanos = BenchSupport.compilerCpuNanos(p.pid());
        if (nanos < 0) {
          return new long[] {-1, System.nanoTime()};
        }
        total += nanos;
      }
      return new long[] {total, System.nanoTime()};
    }

    /**
     * Prints the share of the machine the worker processes' JIT compilers used since {@code before}
     * (the measured events): the samples are meant to measure compiled code.
     */
    void printCompilerShare(long[] before) {
      long[] now = compilerSnapshot();
      if (before[0] < 0 || now[0] < 0) {
        System.err.println("bus-dispatch: no JIT figure for the measured events");
        return;
      }
      System.err.printf(
          "bus-dispatch: the workers' JIT compilers used %.1f percent of the machine while the"
              + " measured events were handled%n",
          100.0
              * (now[0] - before[0])
              / ((double) (now[1] - before[1]) * Runtime.getRuntime().availableProcessors()));
    }

    /** SIGTERM, then SIGKILL after a minute; only the processes this benchmark started. */
    void stop() throws Exception {
      for (Process p : processes) {
        p.destroy();
      }
      for (int i = 0; i < processes.size(); i++) {
        Process p = processes.get(i);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(30, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(outputs.get(i));
      }
    }
  }
}
