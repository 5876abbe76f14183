package dev.bothy.bench;

import com.sun.net.httpserver.HttpServer;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.CreatedSubscription;
import dev.bothy.webhooks.NewSubscription;
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
 * (the {@code webhooks} queue's default workers), no database. Then the latency from an append's
 * commit to the receiver at 200 events per second to one subscription.
 *
 * <p>Prints {@code variant<TAB>seconds} rows (a fixed number of deliveries per sample) on stdout
 * and the comparison on stderr.
 */
public final class WebhooksBench {
  private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");
  private static final int CONCURRENCY = JobsConfig.WEBHOOKS_QUEUE_WORKERS;
  // The highest webhooks.maxRateLimit, configured below: the variants measure what a delivery
  // costs, not the shipped per-subscription cap of 1,000 attempts per second, which alone keeps one
  // subscription under half of any ceiling above 2,000 POSTs per second (D-WF-3).
  private static final int RATE_LIMIT = WebhooksConfig.MAX_RATE_LIMIT_LIMIT;
  private static final int LATENCY_RATE = 200;
  private static final int APPEND_BATCH = 500;
  private static final double THROUGHPUT_GOAL = 0.50;
  private static final double P99_GOAL_MILLIS = 100;
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final UUID USER = Ids.newId();

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
    if (runs < 1 || deliveries < 100 || deliveries % 100 != 0 || latencySeconds < 1) {
      throw new IllegalArgumentException(
          "usage: WebhooksBench runs deliveries latencySeconds (deliveries a multiple of 100)");
    }
    Path dir = Files.createTempDirectory("bothy-bench-webhooks");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    long[] latencies;
    HttpServer receiver = receiver();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"), 0, Duration.ofSeconds(60), Duration.ZERO)) {
      BenchSupport.migrate(server);
      PgExtension.recordInstance(server.superuserDataSource());
      prepare(server, (runs + 1L) * 2 * deliveries + LATENCY_RATE * (latencySeconds + 10L));
      BenchApp app = start(dir, server);
      try {
        for (int run = 0; run <= runs; run++) {
          System.err.println(
              run == 0
                  ? "webhooks: warm-up, not recorded"
                  : "webhooks: run " + run + " of " + runs);
          int units = run == 0 ? Math.max(100, deliveries / 4) / 100 * 100 : deliveries;
          double one = bothy(app, url, 1, units);
          double hundred = bothy(app, url, 100, units);
          double ceiling = ceiling(url, units);
          if (run > 0) {
            BenchSupport.record(samples, "ceiling", ceiling);
            BenchSupport.record(samples, "bothy-1-subscription", one);
            BenchSupport.record(samples, "bothy-100-subscriptions", hundred);
          }
        }
        System.err.printf(
            "webhooks: latency phase, %d events/s for %d s%n", LATENCY_RATE, latencySeconds);
        latencies = latency(app, url, latencySeconds);
      } finally {
        // Stopping the application resets Dropwizard's logging to standard output.
        System.setOut(System.err);
        app.close();
      }
    } finally {
      receiver.stop(0);
      BenchSupport.deleteTree(dir);
    }
    report(samples, deliveries, latencies, latencySeconds);
  }

  private static void report(
      Map<String, List<Double>> samples, int deliveries, long[] latencies, int seconds) {
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
  private static double bothy(BenchApp app, String url, int subscriptions, int deliveries)
      throws Exception {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < subscriptions; i++) {
      CreatedSubscription created =
          app.webhooks()
              .create(
                  new NewSubscription(
                      url, List.of("settings.updated"), false, OptionalInt.of(RATE_LIMIT)));
      ids.add(created.subscription().id());
    }
    long target = RECEIVED.get() + deliveries;
    int events = deliveries / subscriptions;
    long began = System.nanoTime();
    for (int done = 0; done < events; done += APPEND_BATCH) {
      int n = Math.min(APPEND_BATCH, events - done);
      app.unitOfWork().run(() -> app.appender().append(EventLogFixture.drafts(USER, n)));
    }
    awaitReceived(target);
    double seconds = (System.nanoTime() - began) / 1e9;
    for (UUID id : ids) {
      app.webhooks().delete(id);
    }
    return seconds;
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
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      long began = System.nanoTime();
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < CONCURRENCY; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < deliveries / CONCURRENCY; i++) {
                    String id = "msg_" + Ids.newId();
                    long ts = System.currentTimeMillis() / 1000;
                    HttpResponse<Void> r =
                        client.send(
                            HttpRequest.newBuilder(target)
                                .timeout(Duration.ofSeconds(10))
                                .header("content-type", "application/json")
                                .header("webhook-id", id)
                                .header("webhook-timestamp", Long.toString(ts))
                                .header(
                                    "webhook-signature",
                                    WebhookSignature.sign(id, ts, body, secrets))
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                .build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() != 204) {
                      throw new IllegalStateException("ceiling POST answered " + r.statusCode());
                    }
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
   * One subscription, one event appended every 5 ms (paced on the monotonic clock, not catching up
   * in bursts beyond the schedule) for {@code seconds}; returns the latencies in nanoseconds from
   * each append's commit to the receiver's read of that event's body.
   */
  private static long[] latency(BenchApp app, String url, int seconds) throws Exception {
    UUID id =
        app.webhooks()
            .create(
                new NewSubscription(
                    url, List.of("settings.updated"), false, OptionalInt.of(RATE_LIMIT)))
            .subscription()
            .id();
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
      return BenchApp.start(config, server.jdbcUrl("postgres"));
    } finally {
      System.setOut(rows);
    }
  }
}
