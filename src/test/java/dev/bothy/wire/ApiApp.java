package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.codahale.metrics.Gauge;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.domain.TokenHash;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.slf4j.LoggerFactory;

/**
 * What every test of the HTTP API shares: the {@code all} role started inside the test JVM with
 * five API tokens, a real HTTP client against it, builders of request bodies, a Server-Sent Events
 * reader, and the few parts of the running assembly a test reads beside HTTP (the log's head, an
 * append without HTTP, the open streams).
 *
 * <p>It lives in {@code wire} because starting a role and reaching its assembly are package-private
 * there; the tests themselves sit in {@code dev.bothy.api.http}. Each test class starts its own
 * application on its own database copy, so no class sees another's events or streams.
 */
public final class ApiApp implements AutoCloseable {
  /** Alex appends and reads. */
  public static final String ALEX = "alex-token-4b1f0c2e9d7a";

  /** Sam only reads. */
  public static final String SAM = "sam-token-8e3a5d6b1c0f";

  /** Robin only reads the consumers. */
  public static final String ROBIN = "robin-token-2c7e9a4f6b3d";

  /** Robin's second token: it manages webhook subscriptions and nothing else. */
  public static final String ROBIN_WEBHOOKS = "robin-webhooks-token-7f3b1e9c5a2d";

  /** Robin's console token: it looks and acts in the operator console ({@code admin:write}). */
  public static final String ROBIN_ADMIN = "robin-admin-token-5d9e2b7c4a1f";

  /** Alex's monitoring token: records and reads pings of flow 00, nothing else. */
  public static final String ALEX_SYSTEM = "alex-system-token-5d2a8c4e1b9f";

  /** The application log file in the configuration's directory: every line, debug included. */
  public static final String APPLICATION_LOG = "bothy.log";

  /** The request log file in the configuration's directory, in Dropwizard's default format. */
  public static final String REQUEST_LOG = "requests.log";

  /**
   * A second request log file in the configuration's directory, in a format that asks for every
   * place a query string or a header could show: the request line, the query, the URL, two query
   * parameters and the Authorization header.
   */
  public static final String REQUEST_LOG_EVERY_FIELD = "requests-every-field.log";

  /** The format of {@link #REQUEST_LOG_EVERY_FIELD}. */
  public static final String EVERY_FIELD_FORMAT =
      "%h \"%r\" path=%U query=%q url=%requestURL token=%reqParameter{token}"
          + " access_token=%reqParameter{access_token} auth=%i{Authorization} %s";

  /**
   * The sync limits of the API tests: a payload limit a test can exceed in one request, and a
   * subscriber buffer the slow-client test fills while the reading client stays well within it.
   */
  public static final String SMALL_SYNC_LIMITS =
      "sync:\n  maxPayloadBytes: 512\n  tailBatchSize: 100\n  tailSubscriberBuffer: 2000\n"
          + "  tailPollInterval: 200ms\n";

  /** The user every event these tests build is about, and its actor. */
  public static final UUID USER = Ids.newId();

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a stream client waits for its next event: the socket's and the heartbeats'. */
  private static final int STREAM_READ_TIMEOUT_MS = 60_000;

  private final DropwizardTestSupport<BothyConfiguration> support;
  private final Path dir;
  private final List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> capture =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          logged.add(event);
        }
      };
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ApiApp(DropwizardTestSupport<BothyConfiguration> support, Path dir) {
    this.support = support;
    this.dir = dir;
    // After the start: Dropwizard resets logging while it starts. Appenders are called on the
    // logging thread, so a line is captured before the call that logs it returns.
    capture.setName("api-test-capture");
    capture.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(capture);
  }

  /**
   * Returns the ERROR lines logged since the start, each as its logger and formatted message.
   *
   * @return the lines, empty when none
   */
  public List<String> errorLines() {
    return logged.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
        .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
        .toList();
  }

  /**
   * Returns every line logged since the start, any level, with the text of its exception chain, so
   * a test can search them for data that must never be logged.
   *
   * @return the lines
   */
  public List<String> loggedLines() {
    return logged.stream()
        .map(
            e -> {
              StringBuilder line = new StringBuilder(e.getFormattedMessage());
              for (var t = e.getThrowableProxy(); t != null; t = t.getCause()) {
                line.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
              }
              return line.toString();
            })
        .toList();
  }

  /**
   * Returns the value of the gauge {@code bothy.api.streams_open}.
   *
   * @return the open streams
   */
  public int openStreams() {
    Gauge<?> open = support.getEnvironment().metrics().getGauges().get("bothy.api.streams_open");
    return ((Number) open.getValue()).intValue();
  }

  /**
   * Starts the application with the API limits the tests reach ({@code api.maxEventsPerRequest} 10,
   * {@code api.maxRequestBytes} 8192, {@code api.maxPageSize} 50, {@code api.defaultPageSize} 20,
   * {@code api.maxStreams} 4, {@code api.streamRetryAfter} 7s) and the tokens of Alex, Sam and
   * Robin.
   *
   * @param pg the test database
   * @param dir where the configuration file and the log files go
   * @param extraYaml more top-level YAML sections (sync limits), may be empty
   * @return the started application
   * @throws Exception when it does not start
   */
  public static ApiApp start(PgExtension pg, Path dir, String extraYaml) throws Exception {
    Path config = dir.resolve("api-test.yml");
    String yaml =
        "server:\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders:\n"
            + fileAppender(dir.resolve(REQUEST_LOG))
            + fileAppender(dir.resolve(REQUEST_LOG_EVERY_FIELD))
            + "      logFormat: '"
            + EVERY_FIELD_FORMAT
            + "'\n"
            + "logging:\n  level: INFO\n  loggers:\n    dev.bothy: DEBUG\n  appenders:\n"
            + "    - type: console\n"
            + fileAppender(dir.resolve(APPLICATION_LOG))
            + "api:\n"
            + "  maxEventsPerRequest: 10\n"
            + "  maxRequestBytes: 8192\n"
            + "  maxPageSize: 50\n"
            + "  defaultPageSize: 20\n"
            + "  maxStreams: 4\n"
            + "  streamHeartbeat: 200ms\n"
            + "  streamRetryAfter: 7s\n"
            + "  tokens:\n"
            + token("alex", ALEX, "events:append", "events:read")
            + token("sam", SAM, "events:read")
            + token("robin", ROBIN, "admin:read")
            + token("robin-webhooks", ROBIN_WEBHOOKS, "webhooks:admin")
            + token("robin-admin", ROBIN_ADMIN, "admin:read", "admin:write")
            + token("alex-system", ALEX_SYSTEM, "system:write", "system:read")
            + extraYaml;
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    DropwizardTestSupport<BothyConfiguration> support =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            config.toString(),
            (String) null,
            application -> new RoleCommand(application, Role.ALL, "test"),
            ConfigOverride.config("database.url", pg::jdbcUrl));
    support.before();
    return new ApiApp(support, dir);
  }

  private static String fileAppender(Path file) {
    return "    - type: file\n      currentLogFilename: "
        + file
        + "\n      archive: false\n      threshold: ALL\n";
  }

  private static String token(String name, String token, String... scopes) {
    return "    - name: "
        + name
        + "\n      sha256: "
        + TokenHash.sha256Hex(token)
        + "\n      scopes: ["
        + String.join(", ", scopes)
        + "]\n";
  }

  /**
   * One event as the API takes it, about {@link #USER}.
   *
   * @param type the event type
   * @param resourceType the resource's type
   * @param payload the payload, JSON text
   * @return the event, JSON text
   */
  public static String event(String type, String resourceType, String payload) {
    return "{\"type\":\""
        + type
        + "\",\"resource\":{\"type\":\""
        + resourceType
        + "\",\"id\":\""
        + USER
        + "\"},\"actor\":\""
        + USER
        + "\",\"payload\":"
        + payload
        + "}";
  }

  /**
   * A valid {@code settings.updated} event that changed one key.
   *
   * @param key the changed key
   * @return the event, JSON text
   */
  public static String settings(String key) {
    return event("settings.updated", "user", "{\"changedKeys\":[\"" + key + "\"]}");
  }

  /**
   * The body of {@code POST /v1/events}.
   *
   * @param events the events, JSON text each
   * @return the body
   */
  public static String body(String... events) {
    return "{\"events\":[" + String.join(",", events) + "]}";
  }

  /**
   * Parses a response body.
   *
   * @param response the response
   * @return its body as JSON
   * @throws IOException when the body is no JSON
   */
  public static JsonNode json(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }

  /**
   * Parses JSON text.
   *
   * @param text the text
   * @return the JSON
   * @throws IOException when the text is no JSON
   */
  public static JsonNode json(String text) throws IOException {
    return JSON.readTree(text);
  }

  /**
   * Returns the head of the event log, read through the running assembly rather than HTTP.
   *
   * @return the last committed seq
   */
  public long head() {
    return assembly().eventLog().head();
  }

  /**
   * Appends events in one unit through the process's appender, bypassing HTTP, so a test gets many
   * events quickly.
   *
   * @param count how many {@code settings.updated} events about {@link #USER}
   */
  public void append(int count) {
    Assembly assembly = assembly();
    assembly
        .unitOfWork()
        .run(() -> assembly.appender().append(EventLogFixture.drafts(USER, count)));
  }

  /**
   * Creates a webhook subscription to {@code settings.updated} events through the API, with Robin's
   * {@code webhooks:admin} token.
   *
   * @param url the receiver's URL
   * @param rateLimit the subscription's {@code rate_limit}
   * @return the API's answer; {@code 201} when it was created
   * @throws IOException when the request fails
   * @throws InterruptedException when interrupted
   */
  public HttpResponse<String> subscribe(String url, int rateLimit)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(uri("/v1/webhooks/subscriptions"))
            .header("authorization", "Bearer " + ROBIN_WEBHOOKS)
            .header("content-type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"url\":\""
                        + url
                        + "\",\"event_types\":[\"settings.updated\"],\"rate_limit\":"
                        + rateLimit
                        + "}"))
            .build());
  }

  /**
   * Appends {@code count} events at a time until {@code done} holds, waiting up to {@code perBatch}
   * after each batch and {@code total} in all: the webhooks consumer's cursor may pass the first
   * events before a new subscription is visible to it.
   *
   * @param count events per batch
   * @param done what the test waits for
   * @param perBatch the wait after each batch
   * @param total the wait in all
   * @throws InterruptedException when interrupted
   */
  public void appendUntil(int count, BooleanSupplier done, Duration perBatch, Duration total)
      throws InterruptedException {
    long deadline = System.nanoTime() + total.toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      append(count);
      long batchEnd = Math.min(deadline, System.nanoTime() + perBatch.toNanos());
      while (!done.getAsBoolean() && System.nanoTime() < batchEnd) {
        Thread.sleep(20);
      }
    }
  }

  /**
   * Returns the running process's unit of work, over its pool: a test holds pool connections with
   * it.
   *
   * @return the unit of work
   */
  public dev.bothy.kernel.txn.UnitOfWork unitOfWork() {
    return assembly().unitOfWork();
  }

  private Assembly assembly() {
    BothyApplication application = support.getApplication();
    return application.assembly();
  }

  /**
   * Returns the port of the application connector.
   *
   * @return the port
   */
  public int port() {
    return support.getLocalPort();
  }

  /**
   * Returns the port of the admin connector.
   *
   * @return the port
   */
  public int adminPort() {
    return support.getAdminPort();
  }

  /**
   * Resolves a path on the application connector.
   *
   * @param pathAndQuery the path with its query
   * @return the URI
   */
  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
  }

  /**
   * A request builder with the token, when one is given.
   *
   * @param pathAndQuery the path with its query
   * @param token the bearer token, or null for none
   * @return the builder
   */
  public HttpRequest.Builder request(String pathAndQuery, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  /**
   * Sends a request and reads the whole body.
   *
   * @param request the request
   * @return the response
   * @throws IOException when the exchange fails
   * @throws InterruptedException when interrupted
   */
  public HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends a GET.
   *
   * @param pathAndQuery the path with its query
   * @param token the bearer token, or null for none
   * @return the response
   * @throws IOException when the exchange fails
   * @throws InterruptedException when interrupted
   */
  public HttpResponse<String> get(String pathAndQuery, String token)
      throws IOException, InterruptedException {
    return send(request(pathAndQuery, token).GET().build());
  }

  /**
   * Sends a {@code HEAD}.
   *
   * @param pathAndQuery the path with its query
   * @param token the bearer token, or null for none
   * @param headers more headers
   * @return the response, with an empty body
   * @throws IOException when the exchange fails
   * @throws InterruptedException when interrupted
   */
  public HttpResponse<String> headRequest(
      String pathAndQuery, String token, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = request(pathAndQuery, token);
    headers.forEach(b::header);
    return send(b.method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
  }

  /**
   * Sends {@code POST /v1/events} with a JSON body.
   *
   * @param body the body
   * @param token the bearer token, or null for none
   * @param headers more headers, which replace any of the same name
   * @return the response
   * @throws IOException when the exchange fails
   * @throws InterruptedException when interrupted
   */
  public HttpResponse<String> post(String body, String token, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        request("/v1/events", token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::setHeader);
    return send(b.build());
  }

  /**
   * Opens {@code GET /v1/events/stream} as Sam and checks it is an event stream.
   *
   * @param query the query, with its {@code ?}, may be empty
   * @param headers more request headers ({@code Last-Event-ID})
   * @return the open stream
   * @throws Exception when it does not open
   */
  public Sse stream(String query, Map<String, String> headers) throws Exception {
    HttpURLConnection c =
        (HttpURLConnection) uri("/v1/events/stream" + query).toURL().openConnection();
    c.setRequestProperty("Authorization", "Bearer " + SAM);
    headers.forEach(c::setRequestProperty);
    c.setReadTimeout(STREAM_READ_TIMEOUT_MS);
    assertThat(c.getResponseCode()).isEqualTo(200);
    assertThat(c.getContentType()).startsWith("text/event-stream");
    return new Sse(c);
  }

  /**
   * Waits up to 30 seconds until the gauge {@code bothy.api.streams_open} is zero, and fails the
   * test otherwise: a test that counts against {@code api.maxStreams} starts from no open stream.
   *
   * @throws InterruptedException when interrupted
   */
  public void waitForNoOpenStream() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (openStreams() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(openStreams()).as("open streams").isZero();
  }

  /**
   * Reads a log file the application writes in the configuration's directory.
   *
   * @param file {@link #APPLICATION_LOG}, {@link #REQUEST_LOG} or {@link #REQUEST_LOG_EVERY_FIELD}
   * @return its lines so far
   * @throws IOException when it cannot be read
   */
  public List<String> logLines(String file) throws IOException {
    Path path = dir.resolve(file);
    return Files.exists(path) ? Files.readAllLines(path, StandardCharsets.UTF_8) : List.of();
  }

  /** Stops the application. */
  @Override
  public void close() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(capture);
    support.after();
  }

  /**
   * Stops the application, then searches every line it and its request log wrote while the class
   * ran, debug included, for the five tokens: none may appear, and both files must have lines so
   * the search cannot pass on an empty file.
   *
   * @throws IOException when a log file cannot be read
   */
  public void stopAndSearchTheLogs() throws IOException {
    close();
    for (String file : List.of(APPLICATION_LOG, REQUEST_LOG)) {
      List<String> lines = Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8);
      assertThat(lines).as("%s has lines", file).isNotEmpty();
      for (String token : List.of(ALEX, SAM, ROBIN, ROBIN_WEBHOOKS, ALEX_SYSTEM)) {
        assertThat(lines).as("%s without tokens", file).noneMatch(line -> line.contains(token));
      }
    }
  }

  /**
   * One event of a stream.
   *
   * @param id its {@code id:} line, empty for an event without one ({@code resync_required})
   * @param event its {@code event:} name, {@code message} when the line is missing
   * @param data its {@code data:} lines joined
   */
  public record StreamEvent(OptionalLong id, String event, String data) {}

  /**
   * How far a reader that expects consecutive ids got.
   *
   * @param lastInOrder the last id read in order, one below the first expected when none was
   * @param breaking the event that broke the order (a resync has no id), empty when the reader got
   *     every id it expected or the stream ended
   */
  public record InOrder(long lastInOrder, Optional<StreamEvent> breaking) {}

  /**
   * A Server-Sent Events client over its own connection, which {@link #close()} really closes (the
   * JDK HttpClient keeps a connection after its body stream is closed).
   */
  public static final class Sse implements AutoCloseable {
    private final HttpURLConnection connection;
    private final BufferedReader reader;

    Sse(HttpURLConnection connection) throws IOException {
      this.connection = connection;
      this.reader =
          new BufferedReader(
              new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Reads the next event, skipping comments (the heartbeats), for at most the stream's read
     * timeout: heartbeats alone would keep the connection's own timeout from ever firing.
     *
     * @return the event, empty when the stream ended
     * @throws IOException when reading fails, or no event came within the read timeout
     */
    public Optional<StreamEvent> next() throws IOException {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STREAM_READ_TIMEOUT_MS);
      OptionalLong id = OptionalLong.empty();
      String name = "message";
      StringBuilder data = new StringBuilder();
      String line;
      boolean any = false;
      while ((line = reader.readLine()) != null) {
        if (line.isEmpty()) {
          if (any) {
            return Optional.of(new StreamEvent(id, name, data.toString()));
          }
          continue;
        }
        if (line.startsWith(":")) {
          if (!any && System.nanoTime() > deadline) {
            throw new SocketTimeoutException(
                "no event within " + STREAM_READ_TIMEOUT_MS + " ms, only comments");
          }
          continue;
        }
        any = true;
        if (line.startsWith("id: ")) {
          id = OptionalLong.of(Long.parseLong(line.substring(4)));
        } else if (line.startsWith("event: ")) {
          name = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
      return Optional.empty();
    }

    /**
     * Reads events while their ids are {@code first}, {@code first + 1}, ... up to {@code last}.
     *
     * @param first the first id expected
     * @param last the last id expected
     * @param progress told each id read in order
     * @return how far it got
     * @throws IOException when reading fails
     */
    public InOrder readInOrder(long first, long last, LongConsumer progress) throws IOException {
      long expected = first;
      while (expected <= last) {
        Optional<StreamEvent> e = next();
        if (e.isEmpty()) {
          return new InOrder(expected - 1, Optional.empty());
        }
        if (e.get().id().isEmpty() || e.get().id().getAsLong() != expected) {
          return new InOrder(expected - 1, e);
        }
        progress.accept(expected);
        expected++;
      }
      return new InOrder(last, Optional.empty());
    }

    /** Disconnects, so the server sees the client go. */
    @Override
    public void close() {
      connection.disconnect();
    }
  }
}
