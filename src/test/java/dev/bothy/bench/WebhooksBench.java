package dev.bothy.bench;

import com.sun.net.httpserver.HttpServer;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.NewSubscription;
import dev.bothy.webhooks.WebhooksModule;
import dev.bothy.webhooks.adapters.http.ConnectionSettings;
import dev.bothy.webhooks.adapters.http.PinnedHttpTransport;
import dev.bothy.webhooks.app.HostResolver;
import dev.bothy.webhooks.app.OutgoingRequest;
import dev.bothy.webhooks.app.SendResult;
import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import dev.bothy.wire.BenchApp;
import dev.bothy.wire.config.JobsConfig;
import dev.bothy.wire.config.WebhooksConfig;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The webhooks benchmark ({@code bench/run.sh webhooks}): deliveries per second from a running
 * {@code all} role (the consumer, the delivery jobs, the pinned transport, the attempt records) to
 * a receiver on 127.0.0.1 with 1 and with 100 subscriptions, side by side with the ceiling: the
 * same signed POSTs of the same bodies from a plain Java HTTP client loop at the same concurrency
 * (the requests Bothy has open to one receiver with the defaults: {@code
 * webhooks.maxConnectionsPerTarget}), no database. Then the latency from an append's commit to the
 * receiver at 200 events per second to one subscription. Beside them, for telling where the time
 * goes: the ceiling's POSTs through Bothy's own transport ({@code transport-alone}) and each
 * variant's CPU per delivery in this JVM and in the PostgreSQL server (D-WF-10).
 *
 * <p>Prints {@code variant<TAB>seconds} rows (a fixed number of deliveries per sample) on stdout
 * and the comparison on stderr.
 */
public final class WebhooksBench {
  private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");
  // The most POSTs Bothy has in flight to one receiver with the defaults: the webhooks queue's
  // workers, capped per receiver by webhooks.maxConnectionsPerTarget (D-WF-7). The ceiling POSTs at
  // that concurrency, so both sides keep the same number of requests open to the receiver.
  private static final int CONCURRENCY =
      Math.min(
          JobsConfig.WEBHOOKS_QUEUE_WORKERS, WebhooksModule.DEFAULT_MAX_CONNECTIONS_PER_TARGET);
  // The highest webhooks.maxRateLimit, configured below: the variants measure what a delivery
  // costs, not the shipped per-subscription cap of 1,000 attempts per second, which alone keeps one
  // subscription under half of any ceiling above 2,000 POSTs per second (D-WF-3).
  private static final int RATE_LIMIT = WebhooksConfig.MAX_RATE_LIMIT_LIMIT;
  private static final int LATENCY_RATE = 200;
  // The transport alone sends with the shipped webhooks.requestTimeout.
  private static final Duration REQUEST_TIMEOUT =
      Duration.ofMillis(WebhooksConfig.DEFAULT_REQUEST_TIMEOUT.toMilliseconds());
  private static final int APPEND_BATCH = 500;
  private static final double THROUGHPUT_GOAL = 0.50;
  private static final double P99_GOAL_MILLIS = 100;
  // The JIT counts as done warming up after a pass in which its compiler threads used under 5
  // percent of the machine: after 12 to 19 passes (8 to 10 on an earlier tree) they stay at 3 to
  // 4 percent, the application's background loops compiling now and then.
  private static final double QUIET_JIT = 0.05;
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final UUID USER = Ids.newId();

  // One client for every sample, as Bothy's transport keeps one pool: a client per sample left its
  // idle connections open on the receiver, and past the JDK server's 200 idle connections the
  // server closed the ones a later sample reused (a POST answered with no bytes, after 8 runs).
  private static final HttpClient CEILING_CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  // The floor's transactions: two clients keep both cores busy, and a thousand deliveries per
  // transaction is a larger batch than any step of a delivery takes (the queue has 300 workers).
  private static final int FLOOR_CLIENTS = 2;
  private static final int FLOOR_BATCH = 1000;

  private static final AtomicLong CEILING_RETRIES = new AtomicLong();
  private static final AtomicLong RECEIVED = new AtomicLong();
  private static final Map<Long, Long> ARRIVALS = new ConcurrentHashMap<>();
  private static final AtomicReference<byte[]> LAST_BODY = new AtomicReference<>();

  private WebhooksBench() {}

  /**
   * Runs the benchmark and exits: 0 when it ran through, 1 on any failure (a delivery missing after
   * two minutes, a POST of the ceiling answered with other than 204).
   *
   * @param args samples per variant; deliveries per sample (a multiple of 100); seconds of the
   *     latency phase
   */
  public static void main(String[] args) {
    int status = 0;
    try {
      run(args);
    } catch (Throwable t) {
      System.err.println("webhooks: failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.err.flush();
    System.exit(status);
  }

  private static void run(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int deliveries = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
    int latencySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int warmupPasses = args.length > 3 ? Integer.parseInt(args[3]) : 30;
    if (runs < 1
        || deliveries < 100
        || deliveries % 100 != 0
        || latencySeconds < 1
        || warmupPasses < 1) {
      throw new IllegalArgumentException(
          "usage: WebhooksBench runs deliveries latencySeconds warmupPasses (deliveries a multiple"
              + " of 100)");
    }
    Path dir = Files.createTempDirectory("bothy-bench-webhooks");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    Map<String, List<double[]>> cpu = new LinkedHashMap<>();
    Path data = dir.resolve("data");
    long[] latencies;
    Floor floor;
    HttpServer receiver = receiver();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            data,
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      PgExtension.recordInstance(server.superuserDataSource());
      prepare(
          server, (runs + warmupPasses) * 2L * deliveries + LATENCY_RATE * (latencySeconds + 10L));
      BenchApp app = start(dir, server);
      try (PinnedHttpTransport transport = transport()) {
        BenchSupport.warmUp(
            "webhooks",
            warmupPasses,
            QUIET_JIT,
            () -> {
              bothy(app, url, 1, deliveries, data);
              bothy(app, url, 100, deliveries, data);
              transportAlone(transport, url, deliveries);
              return ceiling(url, deliveries);
            });
        List<Double> ceilingBusy = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
          Sample one = bothy(app, url, 1, deliveries, data);
          Sample hundred = bothy(app, url, 100, deliveries, data);
          long[] busy = BenchSupport.machineJiffies();
          Sample ceiling = measured(data, () -> ceiling(url, deliveries));
          ceilingBusy.add(BenchSupport.busyShare(busy));
          Sample alone = measured(data, () -> transportAlone(transport, url, deliveries));
          System.err.printf(
              "webhooks: run %d of %d: ceiling %.0f, 1 subscription %.0f, 100 subscriptions %.0f"
                  + " deliveries/s, Bothy's transport alone %.0f POSTs/s; ceiling POSTs retried on"
                  + " a closed connection so far: %d%n",
              run,
              runs,
              deliveries / ceiling.seconds(),
              deliveries / one.seconds(),
              deliveries / hundred.seconds(),
              deliveries / alone.seconds(),
              CEILING_RETRIES.get());
          record(samples, cpu, "ceiling", ceiling, deliveries);
          record(samples, cpu, "bothy-1-subscription", one, deliveries);
          record(samples, cpu, "bothy-100-subscriptions", hundred, deliveries);
          record(samples, cpu, "transport-alone", alone, deliveries);
        }
        System.err.printf(
            "webhooks: latency phase, %d events/s for %d s%n", LATENCY_RATE, latencySeconds);
        latencies = latency(app, url, latencySeconds);
        // Last: its hundreds of thousands of rows, and their deletion, would slow what follows.
        floor = floor(server, dir, app, url, BenchSupport.median(ceilingBusy));
      } finally {
        // Stopping the application resets Dropwizard's logging to standard output.
        System.setOut(System.err);
        app.close();
      }
    } finally {
      receiver.stop(0);
      BenchSupport.deleteTree(dir);
    }
    report(samples, cpu, deliveries, latencies, latencySeconds, floor);
  }

  private static void report(
      Map<String, List<Double>> samples,
      Map<String, List<double[]>> cpu,
      int deliveries,
      long[] latencies,
      int seconds,
      Floor floor) {
    double ceiling = BenchSupport.rate(samples, "ceiling", deliveries);
    System.err.println();
    System.err.println(
        "| subscriptions | ceiling deliveries/s | Bothy deliveries/s | Bothy / ceiling | goal |");
    System.err.println("|---|---|---|---|---|");
    for (String variant : List.of("bothy-1-subscription", "bothy-100-subscriptions")) {
      double rate = BenchSupport.rate(samples, variant, deliveries);
      System.err.printf(
          "| %s | %.0f | %.0f | %.2f | at least 0.50: %s |%n",
          variant.startsWith("bothy-1-") ? "1" : "100",
          ceiling,
          rate,
          rate / ceiling,
          rate / ceiling >= THROUGHPUT_GOAL ? "met" : "NOT met");
    }
    System.err.println();
    System.err.println(
        "Where the two cores went (medians of the samples' CPU, this JVM with the receiver and"
            + " the embedded PostgreSQL server, per delivery or POST):");
    System.err.println();
    System.err.println(
        "| variant | per second | this JVM us | PostgreSQL us | both us | machine share |");
    System.err.println("|---|---|---|---|---|---|");
    int cores = Runtime.getRuntime().availableProcessors();
    for (String variant : cpu.keySet()) {
      double rate = BenchSupport.rate(samples, variant, deliveries);
      double jvm = BenchSupport.median(cpu.get(variant).stream().map(c -> c[0]).toList());
      double pg = BenchSupport.median(cpu.get(variant).stream().map(c -> c[1]).toList());
      System.err.printf(
          "| %s | %.0f | %.1f | %.1f | %.1f | %.2f |%n",
          variant, rate, jvm, pg, jvm + pg, (jvm + pg) * rate / 1e6 / cores);
    }
    System.err.println();
    System.err.printf(
        "What the issue requires per delivery besides its POST, in the database alone (pgbench, %d"
            + " clients, %d deliveries per transaction), and that work added to the ceiling's POSTs"
            + " on the same machine; valid as a bound where both kept the machine busy (ceiling:"
            + " %.0f percent busy):%n%n",
        FLOOR_CLIENTS, FLOOR_BATCH, floor.ceilingBusy() * 100);
    System.err.println(
        "| database work per delivery | deliveries/s, database alone | machine busy |"
            + " with the POSTs: deliveries/s at most | that / ceiling |");
    System.err.println("|---|---|---|---|---|");
    floorRow("job inserted, fetched, completed", floor.jobs(), floor.jobsBusy(), ceiling);
    floorRow(
        "job inserted, fetched, completed; attempt row",
        floor.attempts(),
        floor.attemptsBusy(),
        ceiling);
    java.util.Arrays.sort(latencies);
    double p50 = latencies[(int) Math.floor(0.50 * (latencies.length - 1))] / 1e6;
    double p99 = latencies[(int) Math.floor(0.99 * (latencies.length - 1))] / 1e6;
    double max = latencies[latencies.length - 1] / 1e6;
    System.err.println();
    System.err.printf(
        "Latency from the append's commit to the receiver's read of the body, %d events/s for %d s"
            + " to 1 subscription:%n%n",
        LATENCY_RATE, seconds);
    System.err.println("| events | p50 ms | p99 ms | max ms | goal |");
    System.err.println("|---|---|---|---|---|");
    System.err.printf(
        "| %d | %.1f | %.1f | %.1f | p99 under %.0f ms: %s |%n",
        latencies.length,
        p50,
        p99,
        max,
        P99_GOAL_MILLIS,
        p99 < P99_GOAL_MILLIS ? "met" : "NOT met");
  }

  /**
   * What {@link #floor} measured: deliveries per second of the database work alone, jobs only and
   * jobs with their attempt rows, how busy the machine was during each and during the ceiling.
   */
  private record Floor(
      double jobs, double jobsBusy, double attempts, double attemptsBusy, double ceilingBusy) {}

  /**
   * The database work the issue requires per delivery, without Bothy (D-WF-6): pgbench with {@link
   * #FLOOR_CLIENTS} clients, each transaction {@link #FLOOR_BATCH} deliveries' worth of rows in the
   * cheapest form these tables allow (one statement per step for the whole batch, time-ordered ids,
   * no consumer round, no read of the subscription or the event, no rate claim, no request): the
   * {@code webhooks.deliver} jobs inserted, fetched as the runtime's fetch does (to {@code
   * running}) and completed, then the same with one attempt row per delivery. The jobs go to a
   * queue of their own and are deleted afterwards, with the subscription the attempts name.
   */
  private static Floor floor(
      EmbeddedPostgresServer server, Path dir, BenchApp app, String url, double ceilingBusy)
      throws Exception {
    UUID subscription = subscribe(app, url);
    // Disabled, so that no event reaches it: its only use is the attempts' foreign key.
    app.webhooks().disable(subscription);
    System.err.println("webhooks: floor, the database work alone (pgbench)");
    try {
      long[] busy = BenchSupport.machineJiffies();
      double jobs =
          BenchSupport.pgbenchSteady(
                      server, dir, floorScript(subscription, false), FLOOR_CLIENTS, 3, 5)
                  .tps()
              * FLOOR_BATCH;
      double jobsBusy = BenchSupport.busyShare(busy);
      busy = BenchSupport.machineJiffies();
      double attempts =
          BenchSupport.pgbenchSteady(
                      server, dir, floorScript(subscription, true), FLOOR_CLIENTS, 3, 5)
                  .tps()
              * FLOOR_BATCH;
      return new Floor(jobs, jobsBusy, attempts, BenchSupport.busyShare(busy), ceilingBusy);
    } finally {
      try (Connection c = server.superuserDataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("DELETE FROM jobs WHERE queue LIKE 'bench_floor_%'");
      }
      app.webhooks().delete(subscription);
    }
  }

  /** One transaction of {@link #floor}: a batch's jobs, and with {@code attempts} its attempts. */
  private static String floorScript(UUID subscription, boolean attempts) {
    String queue = "'bench_floor_' || :client_id";
    return "BEGIN;\n"
        + "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
        + " created_at) SELECT uuidv7(), 'webhooks.deliver', "
        + queue
        + ", jsonb_build_object('subscriptionId', '"
        + subscription
        + "', 'seq', g), 'available', 8, 2, now(), now() FROM generate_series(1, "
        + FLOOR_BATCH
        + ") g;\n"
        + "WITH fetched AS (UPDATE jobs SET state = 'running', attempt = attempt + 1,"
        + " attempted_at = now(), attempted_by = 'bench-floor' WHERE id IN (SELECT id FROM jobs"
        + " WHERE queue = "
        + queue
        + " AND state IN ('available', 'scheduled', 'retryable') AND scheduled_at <= now()"
        + " ORDER BY priority, scheduled_at, id LIMIT "
        + FLOOR_BATCH
        + " FOR UPDATE SKIP LOCKED) RETURNING id) SELECT array_agg(id)::text AS ids FROM"
        + " fetched\n"
        + "\\gset\n"
        + "UPDATE jobs SET state = 'completed', finalized_at = now()"
        + " WHERE id = ANY (':ids'::uuid[]);\n"
        + (attempts
            ? "INSERT INTO webhook_attempts (id, subscription_id, event_seq, event_id, attempt,"
                + " attempted_at, duration_ms, outcome, response_status) SELECT uuidv7(), '"
                + subscription
                + "', g, uuidv7(), 1, now(), 1, 'delivered', 204 FROM generate_series(1, "
                + FLOOR_BATCH
                + ") g;\n"
            : "")
        + "COMMIT;\n";
  }

  /**
   * One row of the floor's table: the rate at which the machine does both the ceiling's POSTs and
   * {@code rate}'s database work, each costing the CPU it took alone.
   */
  private static void floorRow(String work, double rate, double busy, double ceiling) {
    double both = 1 / (1 / ceiling + 1 / rate);
    System.err.printf(
        "| %s | %.0f | %.0f percent | %.0f | %.2f |%n",
        work, rate, busy * 100, both, both / ceiling);
  }

  /** A receiver that answers 204 and notes when each event's body arrived. */
  private static HttpServer receiver() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
    server.createContext(
        "/hook",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          long at = System.nanoTime();
          Matcher m = SEQ.matcher(new String(body, StandardCharsets.UTF_8));
          if (m.find()) {
            ARRIVALS.put(Long.parseLong(m.group(1)), at);
          }
          LAST_BODY.set(body);
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
          RECEIVED.incrementAndGet();
        });
    server.setExecutor(Executors.newFixedThreadPool(2 * CONCURRENCY));
    server.start();
    return server;
  }

  /**
   * One sample through the application: {@code subscriptions} subscriptions to the receiver, {@code
   * deliveries / subscriptions} events appended in units of 500, timed from the first append to the
   * last delivery received; the subscriptions are deleted afterwards.
   */
  private static Sample bothy(
      BenchApp app, String url, int subscriptions, int deliveries, Path data) throws Exception {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < subscriptions; i++) {
      ids.add(subscribe(app, url));
    }
    long target = RECEIVED.get() + deliveries;
    int events = deliveries / subscriptions;
    // The CPU of the timed part only: the subscriptions' deletion after it (their attempts go with
    // them) is not a delivery's work.
    Sample sample =
        measured(
            data,
            () -> {
              long began = System.nanoTime();
              for (int done = 0; done < events; done += APPEND_BATCH) {
                int n = Math.min(APPEND_BATCH, events - done);
                app.unitOfWork().run(() -> app.appender().append(EventLogFixture.drafts(USER, n)));
              }
              awaitReceived(target);
              return (System.nanoTime() - began) / 1e9;
            });
    for (UUID id : ids) {
      app.webhooks().delete(id);
    }
    return sample;
  }

  /** A sample's seconds and the CPU this JVM and the PostgreSQL server used meanwhile. */
  private record Sample(double seconds, long jvmNanos, long serverNanos) {}

  /** Runs a timed part, which returns its seconds, and notes the CPU used meanwhile. */
  private static Sample measured(Path data, Callable<Double> timed) throws Exception {
    long[] before = BenchSupport.cpuNanos(data);
    double seconds = timed.call();
    long[] after = BenchSupport.cpuNanos(data);
    return new Sample(seconds, after[0] - before[0], after[1] - before[1]);
  }

  /** Records a sample's seconds, and its CPU in microseconds per delivery. */
  private static void record(
      Map<String, List<Double>> samples,
      Map<String, List<double[]>> cpu,
      String variant,
      Sample sample,
      int deliveries) {
    BenchSupport.record(samples, variant, sample.seconds());
    cpu.computeIfAbsent(variant, k -> new ArrayList<>())
        .add(
            new double[] {
              sample.jvmNanos() / 1e3 / deliveries, sample.serverNanos() / 1e3 / deliveries
            });
  }

  /**
   * Bothy's own webhook transport as the application builds it with the defaults (connection
   * limits, connect and request timeouts, the answer's excerpt), allowed to reach the loopback
   * receiver: for the variant {@code transport-alone}.
   */
  private static PinnedHttpTransport transport() {
    return new PinnedHttpTransport(
        new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), true),
        HostResolver.system(),
        WebhooksConfig.DEFAULT_MAX_RESPONSE_BODY_CHARS,
        ConnectionSettings.limits(
            WebhooksModule.DEFAULT_MAX_CONNECTIONS,
            WebhooksModule.DEFAULT_MAX_CONNECTIONS_PER_TARGET,
            REQUEST_TIMEOUT,
            WebhooksModule.DEFAULT_CONNECTION_WAIT));
  }

  /**
   * The ceiling's POSTs through Bothy's transport instead of the JDK client, from as many threads,
   * no database: what a delivery's request costs in Bothy, apart from everything around it.
   */
  private static double transportAlone(PinnedHttpTransport transport, String url, int deliveries)
      throws Exception {
    byte[] body = LAST_BODY.get();
    List<WebhookSecret> secrets = List.of(WebhookSecret.generate());
    URI target = URI.create(url);
    return concurrently(
        deliveries,
        (id, ts) -> {
          Map<String, String> headers = new LinkedHashMap<>();
          headers.put("content-type", "application/json");
          headers.put("webhook-id", id);
          headers.put("webhook-timestamp", Long.toString(ts));
          headers.put("webhook-signature", WebhookSignature.sign(id, ts, body, secrets));
          SendResult r =
              transport.send(new OutgoingRequest(target, headers, body, REQUEST_TIMEOUT));
          if (r.status() != 204) {
            throw new IllegalStateException(
                "transport POST answered "
                    + r.status()
                    + r.errorKind().map(k -> " (" + k + ")").orElse(""));
          }
        });
  }

  /** One POST of a sample, with its fresh message id and timestamp. */
  @FunctionalInterface
  private interface Post {
    void send(String id, long timestamp) throws Exception;
  }

  /**
   * Sends {@code deliveries} POSTs from {@link #CONCURRENCY} threads, each with a fresh message id
   * and timestamp as a delivery has; returns the seconds they took.
   */
  private static double concurrently(int deliveries, Post post) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      long began = System.nanoTime();
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < CONCURRENCY; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < deliveries / CONCURRENCY; i++) {
                    post.send("msg_" + Ids.newId(), System.currentTimeMillis() / 1000);
                  }
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get(10, TimeUnit.MINUTES);
      }
      return (System.nanoTime() - began) / 1e9;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The ceiling: the same number of POSTs of the last delivered body, each signed with a fresh
   * message id and timestamp as a delivery is, from {@link #CONCURRENCY} threads of a plain Java
   * HTTP/1.1 client; no database.
   */
  private static double ceiling(String url, int deliveries) throws Exception {
    byte[] body = LAST_BODY.get();
    List<WebhookSecret> secrets = List.of(WebhookSecret.generate());
    URI target = URI.create(url);
    HttpClient client = CEILING_CLIENT;
    return concurrently(
        deliveries,
        (id, ts) -> {
          HttpRequest request =
              HttpRequest.newBuilder(target)
                  .timeout(Duration.ofSeconds(10))
                  .header("content-type", "application/json")
                  .header("webhook-id", id)
                  .header("webhook-timestamp", Long.toString(ts))
                  .header("webhook-signature", WebhookSignature.sign(id, ts, body, secrets))
                  .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                  .build();
          HttpResponse<Void> r;
          try {
            r = client.send(request, HttpResponse.BodyHandlers.discarding());
          } catch (java.net.http.HttpTimeoutException timeout) {
            throw timeout;
          } catch (java.io.IOException stale) {
            // A kept-alive connection the receiver closed while it idled: the JDK client does not
            // retry a POST, Bothy's transport checks a connection that idled before it reuses one;
            // one retry on a new connection is the same.
            CEILING_RETRIES.incrementAndGet();
            r = client.send(request, HttpResponse.BodyHandlers.discarding());
          }
          if (r.statusCode() != 204) {
            throw new IllegalStateException("ceiling POST answered " + r.statusCode());
          }
        });
  }

  /** A subscription to {@code settings.updated} at the receiver, at the benchmark's rate limit. */
  private static UUID subscribe(BenchApp app, String url) {
    return app.webhooks()
        .create(
            new NewSubscription(
                url, List.of("settings.updated"), false, OptionalInt.of(RATE_LIMIT)))
        .subscription()
        .id();
  }

  /**
   * One subscription, one event appended every 5 ms (paced on the monotonic clock, not catching up
   * in bursts beyond the schedule) for {@code seconds}; returns the latencies in nanoseconds from
   * each append's commit to the receiver's read of that event's body.
   */
  private static long[] latency(BenchApp app, String url, int seconds) throws Exception {
    UUID id = subscribe(app, url);
    long period = 1_000_000_000L / LATENCY_RATE;
    int events = LATENCY_RATE * seconds;
    Map<Long, Long> commits = new LinkedHashMap<>();
    long target = RECEIVED.get() + events;
    long start = System.nanoTime();
    for (int i = 0; i < events; i++) {
      long due = start + i * period;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      app.unitOfWork().run(() -> app.appender().append(EventLogFixture.drafts(USER, 1)));
      long committed = System.nanoTime();
      commits.put(app.eventLog().head(), committed);
    }
    awaitReceived(target);
    app.webhooks().delete(id);
    long[] out = new long[commits.size()];
    int k = 0;
    for (Map.Entry<Long, Long> c : commits.entrySet()) {
      Long arrived = ARRIVALS.get(c.getKey());
      if (arrived == null) {
        throw new IllegalStateException("event " + c.getKey() + " was not delivered");
      }
      out[k++] = arrived - c.getValue();
    }
    return out;
  }

  private static void awaitReceived(long target) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (RECEIVED.get() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "deliveries missing after " + WAIT + ": " + (target - RECEIVED.get()));
      }
      Thread.sleep(2);
    }
  }

  private static void prepare(EmbeddedPostgresServer server, long events) throws Exception {
    try (Connection c = server.superuserDataSource().getConnection();
        Statement st = c.createStatement()) {
      // The changelog's first partition holds 1 to 1,000,000.
      for (long from = 1_000_001; from <= events + 2_000_001; from += 1_000_000) {
        st.execute(
            "SELECT bothy_event_log_create_partition(" + from + ", " + (from + 1_000_000) + ")");
      }
    }
  }

  private static BenchApp start(Path dir, EmbeddedPostgresServer server) throws Exception {
    Path config = dir.resolve("webhooks-bench.yml");
    String yaml =
        "server:\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n  appenders:\n    - type: console\n      target: stderr\n"
            + "webhooks:\n  allowedNetworks: [127.0.0.0/8]\n  allowPlainHttp: true\n"
            + "  maxRateLimit: "
            + RATE_LIMIT
            + "\n";
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    PrintStream rows = System.out;
    // Dropwizard's bootstrap logging writes to standard output until the configuration applies.
    System.setOut(System.err);
    try {
      System.err.println("webhooks: starting the all role");
      return BenchApp.start(config, BenchSupport.url(server));
    } finally {
      System.setOut(rows);
    }
  }
}
