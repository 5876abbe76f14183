package dev.bothy.wire;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The writers of the fault trials: threads that append through {@code POST /v1/events} and record
 * pings through {@code POST /v1/system/pings} of the {@code api} process, each request with an
 * {@code Idempotency-Key} and retried with the same key until the API answers it (a fault makes
 * requests fail; the key makes the retry safe). A write counts once its answer arrived: the checks
 * then expect exactly its effects, no fewer and no more.
 */
final class FaultWriters {
  /** An acknowledged append: its events are about the resource {@code user/<resource>}. */
  record Append(UUID resource, int events) {}

  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

  private final HttpClient client;
  private final URI events;
  private final URI pings;
  private final String token;
  private final Duration retryWithin;
  private final List<Append> appends = new CopyOnWriteArrayList<>();
  private final List<UUID> pinged = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final AtomicBoolean writing = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  /**
   * Creates the writers of an {@code api} process.
   *
   * @param port the process's application port
   * @param token a bearer token with {@code events:append} and {@code system:write}
   * @param retryWithin how long one write is retried before the writers fail
   */
  FaultWriters(int port, String token, Duration retryWithin) {
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    this.events = URI.create("http://127.0.0.1:" + port + "/v1/events");
    this.pings = URI.create("http://127.0.0.1:" + port + "/v1/system/pings");
    this.token = token;
    this.retryWithin = retryWithin;
  }

  /**
   * Starts the threads: {@code appenders} appending 1 to 3 events per request, {@code pingers}
   * recording pings, each pausing up to {@code pauseMillis} between writes.
   *
   * @param appenders the appending threads
   * @param pingers the pinging threads
   * @param pauseMillis the longest pause between two writes of a thread
   * @param seed the seed of the threads' random sizes and pauses
   */
  synchronized void start(int appenders, int pingers, int pauseMillis, long seed) {
    if (!threads.isEmpty()) {
      throw new IllegalStateException("the writers are running");
    }
    writing.set(true);
    for (int i = 0; i < appenders + pingers; i++) {
      boolean append = i < appenders;
      Random random = new Random(seed + i);
      Thread t =
          new Thread(
              () -> {
                try {
                  while (writing.get()) {
                    if (append) {
                      append(random);
                    } else {
                      ping();
                    }
                    Thread.sleep(random.nextInt(pauseMillis + 1));
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (Exception | AssertionError e) {
                  failures.add(e);
                }
              },
              "fault-writer-" + i);
      threads.add(t);
      t.start();
    }
  }

  /**
   * Stops the threads: each finishes the write it is on (retrying it up to the retry bound) and
   * ends.
   *
   * @throws Exception when a thread does not end in time or a writer failed
   */
  synchronized void stop() throws Exception {
    writing.set(false);
    for (Thread t : threads) {
      t.join(retryWithin.toMillis() + 30_000);
      if (t.isAlive()) {
        throw new IllegalStateException("a writer did not end: " + t.getName());
      }
    }
    threads.clear();
    if (!failures.isEmpty()) {
      IllegalStateException e = new IllegalStateException("a writer failed");
      failures.forEach(e::addSuppressed);
      failures.clear();
      throw e;
    }
  }

  /**
   * Returns the appends acknowledged so far, in no particular order.
   *
   * @return a copy
   */
  List<Append> appends() {
    return List.copyOf(appends);
  }

  /**
   * Returns the ids of the pings acknowledged so far.
   *
   * @return a copy
   */
  List<UUID> pings() {
    return List.copyOf(pinged);
  }

  private void append(Random random) throws Exception {
    UUID resource = UUID.randomUUID();
    int n = 1 + random.nextInt(3);
    StringBuilder body = new StringBuilder("{\"events\":[");
    for (int i = 0; i < n; i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"type\":\"settings.updated\",\"resource\":{\"type\":\"user\",\"id\":\"")
          .append(resource)
          .append("\"},\"payload\":{\"changedKeys\":[\"k")
          .append(i)
          .append("\"]}}");
    }
    send(events, body.append("]}").toString());
    appends.add(new Append(resource, n));
  }

  private void ping() throws Exception {
    String answer = send(pings, null);
    Matcher m = ID.matcher(answer);
    if (!m.find()) {
      throw new IllegalStateException("a ping's answer holds no id: " + answer);
    }
    pinged.add(UUID.fromString(m.group(1)));
  }

  /** Sends one write with a fresh key, again and again until it is answered with 200 or 201. */
  private String send(URI uri, String body) throws Exception {
    String key = UUID.randomUUID().toString();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key);
    if (body == null) {
      request.POST(HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json");
      request.POST(HttpRequest.BodyPublishers.ofString(body));
    }
    HttpRequest built = request.build();
    long deadline = System.nanoTime() + retryWithin.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> response = client.send(built, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status == 200 || status == 201) {
          return response.body();
        }
        // 409: the same key's first request is still in its unit; 5xx: the fault. Anything
        // else is the harness's mistake and must not be retried into success.
        if (status != 409 && status < 500) {
          throw new AssertionError(uri.getPath() + " answered " + status + ": " + response.body());
        }
        last = "status " + status;
      } catch (IOException e) {
        last = e.getClass().getSimpleName();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        uri.getPath() + " took no write within " + retryWithin + " (last: " + last + ")");
  }
}
