package dev.bothy.bench;

import dev.bothy.api.domain.TokenHash;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.BenchApp;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The API benchmark ({@code bench/run.sh api}), against one {@code all} role started in this JVM on
 * an embedded PostgreSQL:
 *
 * <ul>
 *   <li>appends over HTTP ({@code POST /v1/events} with 1 and with 100 events per request, at 8 and
 *       32 concurrent clients) side by side with the same appends made in-process, the same number
 *       of threads each running {@code unitOfWork().run(() -> appender.append(drafts))} with drafts
 *       of the same size (the ceiling);
 *   <li>the fan-out of the event stream: 200 clients on {@code GET /v1/events/stream} while 1,000
 *       events per second are appended in-process, with the latency from each append's commit to
 *       each client's parse of the event's {@code id:} line, and a check that every client got
 *       every event in order.
 * </ul>
 *
 * <p>Prints {@code variant<TAB>seconds} rows on stdout (a fixed number of events per append sample)
 * and the tables that matter, the stream latencies among them, on stderr: a latency is no sample of
 * the append baseline, so it stays out of the runner's ratio table.
 */
public final class ApiBench {
  private static final int[] EVENTS_PER_REQUEST = {100, 1};
  private static final int[] CLIENTS = {8, 32};
  private static final int WARMUP_STREAM_SECONDS = 5;
  private static final String ALEX = "alex-bench-token-5d2c8e1a7f3b";
  private static final String SAM = "sam-bench-token-9a4e6c0b2d8f";
  private static final UUID USER = Ids.newId();
  private static final int MAX_STREAMS = 512;
  private static final int STREAM_CLIENTS = 200;
  private static final int STREAM_BATCH = 10;
  private static final long STREAM_PERIOD_NANOS = 10_000_000;
  private static final long MAX_LAG_NANOS = 30_000_000_000L;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final double HTTP_GOAL = 0.70;
  private static final double P99_GOAL_MILLIS = 50;

  private ApiBench() {}

  /**
   * Runs the benchmark and exits: 0 when it ran through, 1 on any failure (a response other than
   * 201, a stream out of order or ended early, a timeout), after stopping the application and the
   * database.
   *
   * @param args samples per variant; events per sample with 100 events per request (a multiple of
   *     3,200; samples with 1 event per request use a twentieth of it); seconds of appends in the
   *     stream phase
   */
  public static void main(String[] args) {
    int status = 0;
    try {
      run(args);
    } catch (Throwable t) {
      System.err.println("api: failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.err.flush();
    System.exit(status);
  }

  private static void run(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 64_000;
    int streamSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    if (runs < 1 || events < 3200 || events % 3200 != 0 || streamSeconds < 1) {
      throw new IllegalArgumentException(
          "usage: ApiBench runs events streamSeconds (events a positive multiple of 3200)");
    }
    Path dir = Files.createTempDirectory("bothy-bench-api");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    List<StreamRun> streams = new ArrayList<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      long perRun = 4L * events + 4L * (events / 20) + streamSeconds * 1000L;
      prepare(server, (runs + 1) * perRun);
      BenchApp app = start(dir, server);
      try {
        for (int run = 0; run <= runs; run++) {
          if (run == 0) {
            System.err.println("api: warm-up of every variant and a short stream, not recorded");
          } else {
            System.err.printf("api: run %d of %d%n", run, runs);
          }
          for (int n : EVENTS_PER_REQUEST) {
            for (int clients : CLIENTS) {
              int units = run == 0 ? clients * (n == 1 ? 50 : 8) : units(n, events);
              double inProcess = inProcess(app, n, clients, units);
              double http = http(app, n, clients, units);
              if (run > 0) {
                BenchSupport.record(samples, variant("inproc", n, clients), inProcess);
                BenchSupport.record(samples, variant("http", n, clients), http);
              }
            }
          }
          // The warm-up pass streams too, shorter and not recorded: the first stream phase of a
          // JVM otherwise measures the compiler more than the server.
          StreamRun stream =
              stream(
                  app,
                  run,
                  run == 0 ? Math.min(WARMUP_STREAM_SECONDS, streamSeconds) : streamSeconds);
          if (run > 0) {
            streams.add(stream);
          }
        }
      } finally {
        // Stopping the application resets Dropwizard's logging to a console appender on standard
        // output, which carries only rows: from here on everything goes to standard error.
        System.setOut(System.err);
        app.close();
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    report(samples, streams, events, streamSeconds);
  }

  private static void report(
      Map<String, List<Double>> samples, List<StreamRun> streams, int events, int seconds) {
    System.err.println();
    System.err.println(
        "| events/request | clients | in-process units/s | HTTP requests/s | in-process events/s"
            + " | HTTP events/s | HTTP / in-process | goal |");
    System.err.println("|---|---|---|---|---|---|---|---|");
    for (int n : EVENTS_PER_REQUEST) {
      for (int clients : CLIENTS) {
        int units = units(n, events);
        double in = units / BenchSupport.median(samples.get(variant("inproc", n, clients)));
        double http = units / BenchSupport.median(samples.get(variant("http", n, clients)));
        String goal =
            n == 100
                ? (http / in >= HTTP_GOAL ? "at least 0.70: met" : "at least 0.70: NOT met")
                : "";
        System.err.printf(
            "| %d | %d | %.0f | %.0f | %.0f | %.0f | %.2f | %s |%n",
            n, clients, in, http, in * n, http * n, http / in, goal);
      }
    }
    System.err.println();
    System.err.printf(
        "Stream fan-out: %d clients, %d events per second for %d s per run (%d per %d ms),"
            + " latency from the append's commit to the client's parse of the event's id line.%n%n",
        STREAM_CLIENTS,
        STREAM_BATCH * 1_000_000_000L / STREAM_PERIOD_NANOS,
        seconds,
        STREAM_BATCH,
        STREAM_PERIOD_NANOS / 1_000_000);
    System.err.println(
        "| run | clients with every event in order | dropped with resync_required"
            + " | events per client | append rate events/s | p50 ms | p99 ms | max ms |");
    System.err.println("|---|---|---|---|---|---|---|---|");
    int resyncs = 0;
    int met = 0;
    for (StreamRun s : streams) {
      System.err.println(s.row());
      resyncs += s.resync();
      if (s.latencies() > 0 && s.p99() < P99_GOAL_MILLIS) {
        met++;
      }
    }
    System.err.println();
    System.err.printf(
        "- goal p99 under %.0f ms: met in %d of %d runs%n", P99_GOAL_MILLIS, met, streams.size());
    System.err.println(
        resyncs == 0
            ? "- every client got every event in order, without gap or duplicate, in every run"
            : "- NOT met: "
                + resyncs
                + " client streams were dropped with resync_required (the others got every"
                + " event in order, without gap or duplicate)");
  }

  private static String variant(String kind, int n, int clients) {
    return kind + "-" + n + "x" + clients;
  }

  /** Requests (or in-process units) per sample: a fixed number of events, a twentieth with 1. */
  private static int units(int n, int events) {
    return n == 1 ? events / 20 : events / n;
  }

  /**
   * Writes the instance record the {@code all} role checks at start (as {@code db migrate} does
   * after the changesets) and the partitions every event of the run needs, plus two spare ones.
   */
  private static void prepare(EmbeddedPostgresServer server, long events) throws Exception {
    PgExtension.recordInstance(server.superuserDataSource());
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
    Path config = dir.resolve("api-bench.yml");
    String yaml =
        "server:\n"
            + "  maxThreads: 1024\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n  appenders:\n    - type: console\n      target: stderr\n"
            + "api:\n"
            + "  maxStreams: "
            + MAX_STREAMS
            + "\n"
            // Only while idle: ends the streams of closed clients soon after a stream phase.
            + "  streamHeartbeat: 1s\n"
            + "  tokens:\n"
            + token("alex", ALEX, "events:append")
            + token("sam", SAM, "events:read");
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    PrintStream rows = System.out;
    // Dropwizard's bootstrap logging writes to standard output until the configuration applies.
    System.setOut(System.err);
    try {
      System.err.println("api: starting the all role");
      return BenchApp.start(config, BenchSupport.url(server));
    } finally {
      System.setOut(rows);
    }
  }

  private static String token(String name, String token, String scope) {
    return "    - name: "
        + name
        + "\n      sha256: "
        + TokenHash.sha256Hex(token)
        + "\n      scopes: ["
        + scope
        + "]\n";
  }

  /** The same events as {@code EventLogFixture.drafts(USER, n)}, as the JSON body of a POST. */
  private static String body(int n) {
    StringBuilder b = new StringBuilder("{\"events\":[");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"type\":\"settings.updated\",\"resource\":{\"type\":\"user\",\"id\":\"")
          .append(USER)
          .append("\"},\"payload\":{\"changedKeys\":[\"k")
          .append(i)
          .append("\"]}}");
    }
    return b.append("]}").toString();
  }

  /** Runs a sample and checks that the log grew by exactly its events. */
  private static double checked(BenchApp app, long events, Callable<Double> sample)
      throws Exception {
    long before = app.eventLog().head();
    double seconds = sample.call();
    long grown = app.eventLog().head() - before;
    if (grown != events) {
      throw new IllegalStateException(
          "a sample of " + events + " events made the log grow by " + grown);
    }
    return seconds;
  }

  private static double inProcess(BenchApp app, int n, int clients, int units) throws Exception {
    UnitOfWork uow = app.unitOfWork();
    Appender appender = app.appender();
    EventDraft[] drafts = EventLogFixture.drafts(USER, n);
    return checked(
        app,
        (long) units * n,
        () -> BenchSupport.writers(clients, units, () -> uow.run(() -> appender.append(drafts))));
  }

  private static double http(BenchApp app, int n, int clients, int units) throws Exception {
    // A client per sample: its pool opens one connection per thread, none left idle from before.
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/v1/events"))
            .timeout(WAIT)
            .header("Authorization", "Bearer " + ALEX)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body(n)))
            .build();
    return checked(
        app,
        (long) units * n,
        () ->
            BenchSupport.writers(
                clients,
                units,
                () -> {
                  HttpResponse<String> response =
                      client.send(request, HttpResponse.BodyHandlers.ofString());
                  if (response.statusCode() != 201) {
                    String text = response.body();
                    throw new IllegalStateException(
                        "POST /v1/events answered "
                            + response.statusCode()
                            + " instead of 201: "
                            + text.substring(0, Math.min(500, text.length())));
                  }
                  return null;
                }));
  }

  /**
   * One stream phase: opens the clients after the head, appends at the fixed rate, waits for every
   * client to read the last event, and measures.
   */
  private static StreamRun stream(BenchApp app, int run, int seconds) throws Exception {
    awaitNoOpenStream(app);
    int ticks = (int) (seconds * 1_000_000_000L / STREAM_PERIOD_NANOS);
    int total = ticks * STREAM_BATCH;
    long base = app.eventLog().head();
    CountDownLatch finished = new CountDownLatch(STREAM_CLIENTS);
    List<StreamClient> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    boolean[] timedOut = new boolean[STREAM_CLIENTS];
    Appended appended;
    try {
      for (int i = 0; i < STREAM_CLIENTS; i++) {
        StreamClient client = new StreamClient(openStream(app, base), base, total, finished);
        clients.add(client);
        Thread thread = new Thread(client, "bench-stream-" + i);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
      System.err.printf(
          "api: %d streams open after %d; appending %d events for %d s%n",
          STREAM_CLIENTS, base, total, seconds);
      appended = appendAtRate(app, base, ticks);
      if (!finished.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        for (int i = 0; i < clients.size(); i++) {
          timedOut[i] = clients.get(i).outcome == null;
        }
      }
    } finally {
      // Asks the clients still reading to end at their next read (a heartbeat comes every
      // api.streamHeartbeat); disconnect() from here would wait for the lock a blocked read holds.
      for (StreamClient client : clients) {
        client.stopped = true;
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      for (Thread thread : threads) {
        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
    }

    int complete = 0;
    int resync = 0;
    long received = 0;
    int[] counts = new int[clients.size()];
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      StreamClient client = clients.get(i);
      counts[i] = client.count;
      received += counts[i];
      Outcome outcome = timedOut[i] ? null : client.outcome;
      if (outcome == Outcome.COMPLETE) {
        complete++;
      } else if (outcome == Outcome.RESYNC) {
        resync++;
        System.err.printf("api: stream client %d: %s%n", i, client.detail);
      } else if (outcome == null) {
        failures.add(
            "client "
                + i
                + ": no end "
                + WAIT.toSeconds()
                + " s after the last append; its last id was "
                + (base + counts[i]));
      } else {
        failures.add("client " + i + ": " + client.detail);
      }
    }
    if (!failures.isEmpty()) {
      for (String failure : failures.subList(0, Math.min(10, failures.size()))) {
        System.err.println("api: " + failure);
      }
      throw new IllegalStateException(
          failures.size()
              + " of "
              + STREAM_CLIENTS
              + " stream clients failed (expected ids "
              + (base + 1)
              + " to "
              + (base + total)
              + " in order)");
    }
    long[] committed = appended.committed();
    long[] latencies = new long[Math.toIntExact(received)];
    int k = 0;
    for (int i = 0; i < clients.size(); i++) {
      long[] at = clients.get(i).received;
      for (int e = 0; e < counts[i]; e++) {
        latencies[k++] = at[e] - committed[e];
      }
    }
    Arrays.sort(latencies);
    StreamRun result =
        new StreamRun(
            run,
            complete,
            resync,
            total,
            total / appended.seconds(),
            latencies.length,
            percentile(latencies, 0.50),
            percentile(latencies, 0.99),
            latencies.length == 0 ? 0 : latencies[latencies.length - 1] / 1e6);
    System.err.println("api: stream " + result.row());
    awaitNoOpenStream(app);
    return result;
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1));
    return sorted[i] / 1e6;
  }

  /**
   * Appends {@code STREAM_BATCH} events per unit, one unit per {@code STREAM_PERIOD_NANOS} against
   * absolute deadlines, and notes each event's commit: the moment its unit's {@code run} returned.
   */
  private static Appended appendAtRate(BenchApp app, long base, int ticks) {
    UnitOfWork uow = app.unitOfWork();
    Appender appender = app.appender();
    EventDraft[] drafts = EventLogFixture.drafts(USER, STREAM_BATCH);
    long[] committed = new long[ticks * STREAM_BATCH];
    long start = System.nanoTime();
    for (int t = 0; t < ticks; t++) {
      long due = start + t * STREAM_PERIOD_NANOS;
      for (long ahead = due - System.nanoTime(); ahead > 0; ahead = due - System.nanoTime()) {
        LockSupport.parkNanos(ahead);
      }
      if (System.nanoTime() - due > MAX_LAG_NANOS) {
        throw new IllegalStateException(
            "the appends fell more than 30 s behind 1,000 events per second");
      }
      AppendReceipt receipt = uow.run(() -> appender.appendNumbered(drafts));
      long now = System.nanoTime();
      List<Long> seqs = receipt.seqs();
      for (int i = 0; i < seqs.size(); i++) {
        int index = t * STREAM_BATCH + i;
        if (seqs.get(i) != base + 1 + index) {
          throw new IllegalStateException(
              "the append got seq "
                  + seqs.get(i)
                  + " where "
                  + (base + 1 + index)
                  + " was next: something else appends");
        }
        committed[index] = now;
      }
    }
    return new Appended(committed, (System.nanoTime() - start) / 1e9);
  }

  private static HttpURLConnection openStream(BenchApp app, long after) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + app.port() + "/v1/events/stream?after=" + after)
                .toURL()
                .openConnection();
    c.setRequestProperty("Authorization", "Bearer " + SAM);
    c.setRequestProperty("Accept", "text/event-stream");
    c.setUseCaches(false);
    c.setConnectTimeout(10_000);
    c.setReadTimeout(30_000);
    int status = c.getResponseCode();
    String type = c.getContentType();
    if (status != 200 || type == null || !type.startsWith("text/event-stream")) {
      c.disconnect();
      throw new IllegalStateException(
          "GET /v1/events/stream answered "
              + status
              + " "
              + type
              + " instead of 200 text/event-stream");
    }
    return c;
  }

  private static void awaitNoOpenStream(BenchApp app) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (app.openStreams() != 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            app.openStreams() + " event streams still open " + WAIT.toSeconds() + " s later");
      }
      Thread.sleep(50);
    }
  }

  /** How a stream client ended. */
  private enum Outcome {
    COMPLETE,
    RESYNC,
    OUT_OF_ORDER,
    ERROR
  }

  /** The commit moment of each event of a stream phase, and how long the appends took. */
  private record Appended(long[] committed, double seconds) {}

  /** One stream phase's measures; latencies in milliseconds. */
  private record StreamRun(
      int run,
      int complete,
      int resync,
      int events,
      double rate,
      long latencies,
      double p50,
      double p99,
      double max) {
    String row() {
      return String.format(
          "| %d | %d of %d | %d | %d | %.0f | %.1f | %.1f | %.1f |",
          run, complete, STREAM_CLIENTS, resync, events, rate, p50, p99, max);
    }
  }

  /** One Server-Sent Events client, on its own connection and thread. */
  private static final class StreamClient implements Runnable {
    private static final int READ_BUFFER_BYTES = 1 << 16;
    private static final int LINE_HEAD_BYTES = 64;
    private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESYNC =
        "event: resync_required".getBytes(StandardCharsets.US_ASCII);

    private final HttpURLConnection connection;
    private final long base;
    private final long[] received;
    private final CountDownLatch finished;
    private volatile int count;
    private volatile Outcome outcome;
    private volatile boolean stopped;
    private volatile String detail = "";

    StreamClient(HttpURLConnection connection, long base, int total, CountDownLatch finished) {
      this.connection = connection;
      this.base = base;
      this.received = new long[total];
      this.finished = finished;
    }

    /**
     * Reads the events until the last one, noting when each event's id line was parsed. It scans
     * bytes and looks only at the start of each line: the clients share the server's cores, so a
     * client that decoded every data line into a string would measure mostly itself.
     */
    @Override
    public void run() {
      long expected = base + 1;
      long last = base + received.length;
      byte[] buffer = new byte[READ_BUFFER_BYTES];
      byte[] head = new byte[LINE_HEAD_BYTES];
      int lineLength = 0;
      try (InputStream in = connection.getInputStream()) {
        int n;
        while (expected <= last && (n = in.read(buffer)) > 0) {
          long now = System.nanoTime();
          if (stopped) {
            end(Outcome.ERROR, "stopped after id " + (expected - 1));
            return;
          }
          for (int i = 0; i < n && expected <= last; i++) {
            byte b = buffer[i];
            if (b != '\n') {
              if (lineLength < head.length) {
                head[lineLength] = b;
              }
              lineLength++;
              continue;
            }
            int kept = Math.min(lineLength, head.length);
            lineLength = 0;
            if (startsWith(head, kept, ID)) {
              long seq = digits(head, ID.length, kept);
              if (seq != expected) {
                end(Outcome.OUT_OF_ORDER, "got id " + seq + " where " + expected + " was next");
                return;
              }
              received[(int) (seq - base - 1)] = now;
              expected++;
              count = (int) (expected - base - 1);
            } else if (startsWith(head, kept, RESYNC) && kept == RESYNC.length) {
              end(Outcome.RESYNC, "dropped with resync_required after id " + (expected - 1));
              return;
            }
          }
        }
        if (expected <= last) {
          end(Outcome.ERROR, "the stream ended after id " + (expected - 1));
        } else {
          end(Outcome.COMPLETE, "");
        }
      } catch (IOException | RuntimeException e) {
        end(Outcome.ERROR, "after id " + (expected - 1) + ": " + e);
      }
    }

    private static boolean startsWith(byte[] line, int length, byte[] prefix) {
      if (length < prefix.length) {
        return false;
      }
      for (int i = 0; i < prefix.length; i++) {
        if (line[i] != prefix[i]) {
          return false;
        }
      }
      return true;
    }

    private static long digits(byte[] line, int from, int to) {
      if (from >= to) {
        throw new IllegalStateException("an id line without a number");
      }
      long value = 0;
      for (int i = from; i < to; i++) {
        int d = line[i] - '0';
        if (d < 0 || d > 9) {
          throw new IllegalStateException("an id line with a non-digit");
        }
        value = value * 10 + d;
      }
      return value;
    }

    private void end(Outcome how, String why) {
      if (outcome == null) {
        detail = why;
        outcome = how;
        finished.countDown();
      }
    }
  }
}
