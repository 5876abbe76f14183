package dev.bothy.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.bus.BusModule;
import dev.bothy.bus.Relay;
import dev.bothy.bus.RelaySettings;
import dev.bothy.bus.RelayTracer;
import dev.bothy.bus.Streams;
import dev.bothy.bus.adapters.nats.EventMessage;
import dev.bothy.bus.adapters.nats.NatsStreams;
import dev.bothy.bus.app.RelayMetrics;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.Event;
import dev.bothy.sync.ReadResult;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.NatsServer;
import dev.bothy.wire.config.BusConfig;
import dev.bothy.wire.config.DatabaseConfig;
import dev.bothy.wire.config.SyncConfig;
import io.dropwizard.jackson.Jackson;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.PublishOptions;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StreamState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bus relay benchmark ({@code bench/run.sh bus-relay}): events per second the relay carries
 * from a pre-filled log to a fresh {@code EVENTS} stream, side by side with the ceiling (a raw
 * jnats loop publishing the same messages with the same publish options and the same window, no
 * database); then the latency from an append's commit to the event's storage in the stream at 200
 * events per second.
 *
 * <p>Both throughput variants are timed from the end of their first window to the end of their last
 * (the relay: from the first window's cursor update to the last's; the ceiling: from the first
 * window's last ack to the last window's), and the row is that time scaled to the whole log. A
 * relay's first window waits for its takeover grace ({@code bus.relay.publishAckTimeout}) and the
 * next poll after it; that start-up is reported on stderr, apart from the rate.
 */
public final class BusRelayBench {
  private static final int LATENCY_RATE = 200;
  private static final double THROUGHPUT_GOAL = 0.50;
  private static final double P99_GOAL_MILLIS = 50;
  private static final Duration WAIT = Duration.ofMinutes(5);
  private static final int PAGE = 5000;

  private BusRelayBench() {}

  /**
   * Runs the benchmark and exits: 0 when it ran through, 1 on any failure (an event missing from
   * the stream, a duplicate, a wait that timed out).
   *
   * @param args samples per variant; events in the log; seconds of the latency phase
   */
  public static void main(String[] args) {
    int status = 0;
    try {
      run(args);
    } catch (Throwable t) {
      System.err.println("bus-relay: failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.err.flush();
    System.exit(status);
  }

  private static void run(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    int latencySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    if (runs < 1 || events < 1000 || latencySeconds < 1) {
      throw new IllegalArgumentException(
          "usage: BusRelayBench runs events latencySeconds (events at least 1000)");
    }
    Path dir = Files.createTempDirectory("bothy-bench-bus-relay");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    List<Double> startups = new ArrayList<>();
    List<Double> windows = new ArrayList<>();
    Latencies latencies;
    BusModule.Settings bus;
    NatsServer nats = NatsServer.jetStream();
    nats.start();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      fill(server, events, events + LATENCY_RATE * (latencySeconds + 10L));
      bus =
          Jackson.newObjectMapper()
              .readValue("{\"nats\":{\"url\":\"" + nats.url() + "\"}}", BusConfig.class)
              .settings(new SyncConfig(), "bothy-bench")
              .orElseThrow();
      BusModule module = new BusModule(bus);
      module.connect();
      try (HikariDataSource pool = BenchSupport.pool(server, 4)) {
        EventLogFixture log = new EventLogFixture(pool);
        List<Event> all = readAll(log, events);
        System.err.printf(
            "bus-relay: %d events, bus.relay.batchSize %d, bus.relay.window %d%n",
            events, bus.relay().batchSize(), bus.relay().window());
        for (int run = 0; run <= runs; run++) {
          System.err.println(
              run == 0
                  ? "bus-relay: warm-up, not recorded"
                  : "bus-relay: run " + run + " of " + runs);
          long[] before = cpu(dir, nats);
          double ceiling = ceiling(module, all, bus.relay().window());
          long[] between = cpu(dir, nats);
          Drain relay = relay(server, module, log, bus.relay(), events);
          long[] after = cpu(dir, nats);
          System.err.printf(
              "bus-relay:   ceiling %.0f events/s, relay %.0f events/s (%.2f); relay start to"
                  + " first window %.2f s, median window %.1f ms%n",
              events / ceiling,
              events / relay.seconds(),
              ceiling / relay.seconds(),
              relay.startup(),
              relay.medianWindowMillis());
          System.err.printf(
              "bus-relay:   CPU ms per 1000 events (whole sample), benchmark JVM / PostgreSQL /"
                  + " nats-server: ceiling %s, relay %s%n",
              cpuPerThousand(before, between, events), cpuPerThousand(between, after, events));
          if (run > 0) {
            BenchSupport.record(samples, "ceiling", ceiling);
            BenchSupport.record(samples, "relay", relay.seconds());
            startups.add(relay.startup());
            windows.add(relay.medianWindowMillis());
          }
        }
        System.err.printf(
            "bus-relay: latency phase, %d events/s for %d s%n", LATENCY_RATE, latencySeconds);
        latencies = latency(server, module, log, bus.relay(), latencySeconds);
      } finally {
        module.close();
      }
    } finally {
      nats.close();
      BenchSupport.deleteTree(dir);
    }
    report(samples, events, startups, windows, latencies, latencySeconds, bus.relay());
  }

  private static void report(
      Map<String, List<Double>> samples,
      int events,
      List<Double> startups,
      List<Double> windows,
      Latencies latencies,
      int seconds,
      RelaySettings relay) {
    double ceiling = BenchSupport.rate(samples, "ceiling", events);
    double rate = BenchSupport.rate(samples, "relay", events);
    System.err.println();
    System.err.println(
        "| events | window | ceiling events/s | relay events/s | relay / ceiling | goal |");
    System.err.println("|---|---|---|---|---|---|");
    System.err.printf(
        "| %d | %d | %.0f | %.0f | %.2f | at least %.2f: %s |%n",
        events,
        relay.window(),
        ceiling,
        rate,
        rate / ceiling,
        THROUGHPUT_GOAL,
        rate / ceiling >= THROUGHPUT_GOAL ? "met" : "NOT met");
    System.err.printf(
        "%nRelay start to its first window (median of %d): %.2f s (the takeover grace,"
            + " bus.relay.publishAckTimeout %d s, then the next poll); median window (publish to"
            + " last ack): %.1f ms%n",
        startups.size(),
        BenchSupport.median(startups),
        relay.publishAckTimeout().toSeconds(),
        BenchSupport.median(windows));
    System.err.println();
    System.err.printf(
        "Latency from the append's commit to the event in the stream, %d events/s for %d s:%n%n",
        LATENCY_RATE, seconds);
    System.err.println("| measured to | events | p50 ms | p99 ms | max ms | goal |");
    System.err.println("|---|---|---|---|---|---|");
    row("stored (stream timestamp)", latencies.stored(), true);
    row("received (ordered consumer)", latencies.received(), false);
  }

  private static void row(String what, double[] millis, boolean goal) {
    Arrays.sort(millis);
    double p50 = percentile(millis, 0.50);
    double p99 = percentile(millis, 0.99);
    System.err.printf(
        "| %s | %d | %.1f | %.1f | %.1f | %s |%n",
        what,
        millis.length,
        p50,
        p99,
        millis[millis.length - 1],
        goal
            ? "p99 under "
                + (int) P99_GOAL_MILLIS
                + " ms: "
                + (p99 < P99_GOAL_MILLIS ? "met" : "NOT met")
            : "-");
  }

  private static double percentile(double[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  /**
   * The ceiling: the same messages (subject, {@code Bothy-Seq} and {@code traceparent} headers,
   * body, {@code Nats-Msg-Id}, expected stream and expected last sequence, as {@code
   * JetStreamClient} sends them) published with jnats to a fresh stream, {@code window} at a time,
   * waiting for every ack of a window before the next; no database. Returns the seconds from the
   * end of the first window to the end of the last, scaled to the whole log.
   */
  private static double ceiling(BusModule module, List<Event> events, int window) throws Exception {
    freshStream(module);
    JetStream js = module.connection().jetStream();
    long last = 0;
    long firstWindowEnd = 0;
    int first = 0;
    for (int from = 0; from < events.size(); from += window) {
      int n = Math.min(window, events.size() - from);
      List<CompletableFuture<PublishAck>> acks = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        Event e = events.get(from + i);
        acks.add(
            js.publishAsync(
                Streams.subjectOf(e.type()),
                EventMessage.headers(e),
                EventMessage.body(e),
                PublishOptions.builder()
                    .messageId(e.id().toString())
                    .expectedStream(Streams.EVENTS)
                    .expectedLastSequence(last + i)
                    .build()));
      }
      for (int i = 0; i < n; i++) {
        PublishAck ack = acks.get(i).get(30, TimeUnit.SECONDS);
        if (ack.isDuplicate() || ack.getSeqno() != last + i + 1) {
          throw new IllegalStateException("ceiling: unexpected ack " + ack);
        }
      }
      last += n;
      if (from == 0) {
        firstWindowEnd = System.nanoTime();
        first = n;
      }
    }
    double seconds = (System.nanoTime() - firstWindowEnd) / 1e9;
    checkStream(module, events.size());
    return seconds * events.size() / (events.size() - first);
  }

  /** What one relay sample measured. */
  private record Drain(double seconds, double startup, double medianWindowMillis) {}

  /**
   * One relay sample: a fresh stream and no cursor row, a {@link Relay} built as {@code
   * BusModule.startRelay} builds it (the default {@code bus.relay} settings, a lease session and a
   * LISTEN connection of its own), started and left to drain the log; stopped at the head.
   */
  private static Drain relay(
      EmbeddedPostgresServer server,
      BusModule module,
      EventLogFixture log,
      RelaySettings settings,
      int events)
      throws Exception {
    freshStream(module);
    sql(server, "DELETE FROM bus_relay_cursors");
    Counting metrics = new Counting();
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    Relay relay = relay(server, module, log, settings, metrics, fatal);
    long started = System.nanoTime();
    relay.start();
    try {
      metrics.await(events, fatal);
    } finally {
      relay.stop(Duration.ofSeconds(10));
    }
    if (metrics.duplicates() > 0) {
      throw new IllegalStateException("relay: the stream reported duplicates on a fresh stream");
    }
    checkStream(module, events);
    long cursor = cursor(server);
    if (cursor != events) {
      throw new IllegalStateException("relay: cursor " + cursor + " is not at the head " + events);
    }
    double seconds = (metrics.lastAt() - metrics.firstAt()) / 1e9;
    return new Drain(
        seconds * events / (events - metrics.firstCount()),
        (metrics.firstAt() - started) / 1e9,
        metrics.medianWindowMillis());
  }

  private static Relay relay(
      EmbeddedPostgresServer server,
      BusModule module,
      EventLogFixture log,
      RelaySettings settings,
      RelayMetrics metrics,
      AtomicReference<Throwable> fatal)
      throws Exception {
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
        module.connection(),
        new Relay.Connections(
            connection(server, Relay.LEASE_APPLICATION_NAME),
            connection(server, Relay.LISTEN_APPLICATION_NAME)),
        metrics,
        RelayTracer.NONE,
        Clock.system(),
        fatal::set);
  }

  /** The measured latencies, in milliseconds. */
  private record Latencies(double[] stored, double[] received) {}

  /**
   * A relay over the stream the last sample left (in step with the cursor at the head), an ordered
   * push consumer on the stream from its next message, then one event appended every 5 ms (paced on
   * the monotonic clock) for {@code seconds}. For each event: the commit as {@link Instant#now()}
   * and {@link System#nanoTime()} right after {@code UnitOfWork.run} returned; the stream's
   * timestamp of the stored message (the server's wall clock at storage, from the message's
   * metadata) and the consumer's {@code System.nanoTime()} at delivery.
   */
  private static Latencies latency(
      EmbeddedPostgresServer server,
      BusModule module,
      EventLogFixture log,
      RelaySettings settings,
      int seconds)
      throws Exception {
    Counting metrics = new Counting();
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    Relay relay = relay(server, module, log, settings, metrics, fatal);
    relay.start();
    Map<Long, Instant> storedAt = new ConcurrentHashMap<>();
    Map<Long, Long> receivedAt = new ConcurrentHashMap<>();
    Map<Long, Instant> commitWall = new LinkedHashMap<>();
    Map<Long, Long> commitNanos = new LinkedHashMap<>();
    UUID user = Ids.newId();
    Dispatcher dispatcher = module.connection().createDispatcher();
    try {
      // One event through the relay first: its takeover grace is over once it is published.
      log.append(user, 1);
      metrics.await(1, fatal);
      JetStreamSubscription sub =
          module
              .connection()
              .jetStream()
              .subscribe(
                  Streams.EVENT_SUBJECTS,
                  dispatcher,
                  m -> {
                    long at = System.nanoTime();
                    long seq = Long.parseLong(m.getHeaders().getFirst(EventMessage.BOTHY_SEQ));
                    receivedAt.put(seq, at);
                    storedAt.put(seq, m.metaData().timestamp().toInstant());
                  },
                  false,
                  PushSubscribeOptions.builder().stream(Streams.EVENTS)
                      .ordered(true)
                      .configuration(
                          ConsumerConfiguration.builder().deliverPolicy(DeliverPolicy.New).build())
                      .build());
      Thread.sleep(500);
      long period = 1_000_000_000L / LATENCY_RATE;
      int count = LATENCY_RATE * seconds;
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        long wait = start + i * period - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        log.append(user, 1);
        long nanos = System.nanoTime();
        Instant wall = Instant.now();
        long seq = log.log.head();
        commitNanos.put(seq, nanos);
        commitWall.put(seq, wall);
      }
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!receivedAt.keySet().containsAll(commitNanos.keySet())) {
        if (System.nanoTime() > deadline || fatal.get() != null) {
          throw new IllegalStateException(
              "latency: events missing from the stream after " + WAIT, fatal.get());
        }
        Thread.sleep(10);
      }
      dispatcher.unsubscribe(sub);
    } finally {
      module.connection().closeDispatcher(dispatcher);
      relay.stop(Duration.ofSeconds(10));
    }
    double[] stored = new double[commitNanos.size()];
    double[] received = new double[commitNanos.size()];
    int k = 0;
    for (Map.Entry<Long, Long> c : commitNanos.entrySet()) {
      long seq = c.getKey();
      stored[k] = Duration.between(commitWall.get(seq), storedAt.get(seq)).toNanos() / 1e6;
      received[k] = (receivedAt.get(seq) - c.getValue()) / 1e6;
      k++;
    }
    return new Latencies(stored, received);
  }

  /**
   * The relay's metrics as the benchmark reads them: when the first window's cursor update landed
   * and with how many events, when the count reached the target, and each window's publish time.
   */
  private static final class Counting implements RelayMetrics {
    private long total;
    private long duplicates;
    private long firstAt;
    private long firstCount;
    private long lastAt;
    private final List<Long> windows = new ArrayList<>();

    @Override
    public synchronized void published(int events, int duplicateEvents) {
      long now = System.nanoTime();
      if (total == 0) {
        firstAt = now;
        firstCount = events;
      }
      total += events;
      duplicates += duplicateEvents;
      lastAt = now;
      notifyAll();
    }

    @Override
    public synchronized void window(Duration publishToLastAck) {
      windows.add(publishToLastAck.toNanos());
    }

    synchronized void await(long target, AtomicReference<Throwable> fatal)
        throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (total < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || fatal.get() != null) {
          throw new IllegalStateException(
              "relay: " + total + " of " + target + " events published after " + WAIT, fatal.get());
        }
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 100_000_000L));
      }
    }

    synchronized long firstAt() {
      return firstAt;
    }

    synchronized long firstCount() {
      return firstCount;
    }

    synchronized long lastAt() {
      return lastAt;
    }

    synchronized long duplicates() {
      return duplicates;
    }

    synchronized double medianWindowMillis() {
      List<Double> millis = new ArrayList<>();
      for (long w : windows) {
        millis.add(w / 1e6);
      }
      return millis.isEmpty() ? Double.NaN : BenchSupport.median(millis);
    }
  }

  /**
   * CPU time so far, in nanoseconds: this JVM, the PostgreSQL server (with its ended backends) and
   * the nats-server process, from /proc; -1 where it cannot be read.
   */
  private static long[] cpu(Path dir, NatsServer nats) {
    long[] jvmAndServer = BenchSupport.cpuNanos(dir.resolve("data"));
    long natsNanos = -1;
    try {
      natsNanos =
          BenchSupport.cpuTicks(Path.of("/proc", Long.toString(nats.pid()), "stat")) * 10_000_000L;
    } catch (java.io.IOException | RuntimeException e) {
      // Reported as unknown.
    }
    return new long[] {jvmAndServer[0], jvmAndServer[1], natsNanos};
  }

  private static String cpuPerThousand(long[] from, long[] to, int events) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < from.length; i++) {
      out.append(i == 0 ? "" : " / ");
      out.append(
          from[i] < 0 || to[i] < 0
              ? "?"
              : String.format("%.1f", (to[i] - from[i]) / 1e6 / (events / 1000.0)));
    }
    return out.toString();
  }

  /** Deletes {@code EVENTS} and declares it again as the start step does. */
  private static void freshStream(BusModule module) throws Exception {
    JetStreamManagement jsm = module.management();
    if (jsm.getStreamNames().contains(Streams.EVENTS)) {
      jsm.deleteStream(Streams.EVENTS);
    }
    NatsStreams.ensure(jsm, module.events(), true);
  }

  /** Checks the stream holds {@code events} messages, the last with {@code Bothy-Seq} = events. */
  private static void checkStream(BusModule module, long events) throws Exception {
    JetStreamManagement jsm = module.management();
    StreamState state = jsm.getStreamInfo(Streams.EVENTS).getStreamState();
    String lastSeq =
        jsm.getMessage(Streams.EVENTS, state.getLastSequence())
            .getHeaders()
            .getFirst(EventMessage.BOTHY_SEQ);
    if (state.getMsgCount() != events || !Long.toString(events).equals(lastSeq)) {
      throw new IllegalStateException(
          "the stream holds "
              + state.getMsgCount()
              + " messages, the last with Bothy-Seq "
              + lastSeq
              + "; expected "
              + events);
    }
  }

  private static List<Event> readAll(EventLogFixture log, int events) {
    List<Event> all = new ArrayList<>(events);
    long after = 0;
    while (all.size() < events) {
      List<Event> page = ((ReadResult.Page) log.log.readAfter(after, PAGE)).events();
      if (page.isEmpty()) {
        throw new IllegalStateException("the log holds " + all.size() + " events");
      }
      all.addAll(page);
      after = page.get(page.size() - 1).seq();
    }
    return all;
  }

  private static PoolSettings connection(EmbeddedPostgresServer server, String applicationName) {
    return new PoolSettings(
        BenchSupport.url(server), "bothy_app", null, 1, Duration.ofSeconds(5), applicationName);
  }

  /**
   * Fills the log with {@code events} {@code settings.updated} events (as the consumers benchmark
   * does) and creates the partitions for {@code capacity} events.
   */
  private static void fill(EmbeddedPostgresServer server, int events, long capacity)
      throws Exception {
    List<String> statements = new ArrayList<>();
    // The changelog's first partition holds 1 to 1,000,000.
    for (long from = 1_000_001; from <= capacity; from += 1_000_000) {
      statements.add(
          "SELECT bothy_event_log_create_partition(" + from + ", " + (from + 1_000_000) + ")");
    }
    statements.add(
        "INSERT INTO event_log (seq, id, type, occurred_at, resource_type, resource_id,"
            + " payload) SELECT g, gen_random_uuid(), 'settings.updated', now(), 'user',"
            + " gen_random_uuid(), '{\"changedKeys\":[\"k\"]}' FROM generate_series(1, "
            + events
            + ") g");
    statements.add("UPDATE sequence_counters SET value = " + events + " WHERE name = 'event_seq'");
    statements.add("VACUUM ANALYZE event_log");
    sql(server, statements.toArray(String[]::new));
  }

  private static long cursor(EmbeddedPostgresServer server) throws Exception {
    try (java.sql.Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT last_seq FROM bus_relay_cursors")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  private static void sql(EmbeddedPostgresServer server, String... statements) throws Exception {
    try (java.sql.Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String s : statements) {
        st.execute(s);
      }
    }
  }
}
