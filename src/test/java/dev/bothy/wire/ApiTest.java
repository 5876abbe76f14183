package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.Ids;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The HTTP API of the all role, through a real HTTP client against the started application. */
class ApiTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir static Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final UUID USER = Ids.newId();
  private static ApiApp app;

  @BeforeAll
  static void start() throws Exception {
    app =
        ApiApp.start(
            PG,
            dir,
            "sync:\n  maxPayloadBytes: 512\n  tailBatchSize: 100\n  tailSubscriberBuffer: 2000\n"
                + "  tailPollInterval: 200ms\n");
  }

  @AfterAll
  static void stopAndSearchTheLogs() throws IOException {
    if (app != null) {
      app.close();
    }
    // Every line the application and its request log wrote while the class ran, debug included.
    for (String file : List.of(ApiApp.APPLICATION_LOG, ApiApp.REQUEST_LOG)) {
      List<String> lines = Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8);
      assertThat(lines).as("%s has lines", file).isNotEmpty();
      for (String token : List.of(ApiApp.ALEX, ApiApp.SAM, ApiApp.ROBIN)) {
        assertThat(lines).as("%s without tokens", file).noneMatch(line -> line.contains(token));
      }
    }
  }

  static String event(String type, String resourceType, String payload) {
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

  static String settings(String key) {
    return event("settings.updated", "user", "{\"changedKeys\":[\"" + key + "\"]}");
  }

  static String body(String... events) {
    return "{\"events\":[" + String.join(",", events) + "]}";
  }

  private static long head() {
    return app.assembly().eventLog().head();
  }

  private static JsonNode json(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }

  @Test
  void three_appended_events_get_201_consecutive_seqs_and_are_readable_through_get()
      throws Exception {
    long before = head();
    HttpResponse<String> created =
        app.post(body(settings("a"), settings("b"), settings("c")), ApiApp.ALEX, Map.of());

    assertThat(created.statusCode()).isEqualTo(201);
    // A plain response goes out whole, with its length; only event streams are sent as flushed.
    assertThat(created.headers().firstValueAsLong("Content-Length"))
        .hasValue(created.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    JsonNode events = json(created).get("events");
    assertThat(events).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(i).get("seq").asLong()).isEqualTo(before + 1 + i);
    }
    HttpResponse<String> page = app.get("/v1/events?after=" + before, ApiApp.SAM);
    assertThat(page.statusCode()).isEqualTo(200);
    JsonNode read = json(page);
    assertThat(read.get("next_after").asLong()).isEqualTo(before + 3);
    assertThat(read.get("events")).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode e = read.get("events").get(i);
      assertThat(e.get("id").asText()).isEqualTo(events.get(i).get("id").asText());
      assertThat(e.get("type").asText()).isEqualTo("settings.updated");
      assertThat(e.get("resource").get("id").asText()).isEqualTo(USER.toString());
      assertThat(e.get("actor").asText()).isEqualTo(USER.toString());
      assertThat(e.get("payload").get("changedKeys").get(0).asText())
          .isEqualTo(String.valueOf((char) ('a' + i)));
    }
  }

  @Test
  void a_request_whose_third_event_has_an_unknown_type_writes_nothing() throws Exception {
    long before = head();
    HttpResponse<String> refused =
        app.post(
            body(settings("a"), settings("b"), event("settings.deleted", "user", "{}")),
            ApiApp.ALEX,
            Map.of());

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(json(refused).get("type").asText()).isEqualTo("unknown_event_type");
    assertThat(json(refused).get("pointer").asText()).isEqualTo("/events/2/type");
    assertThat(head()).isEqualTo(before);
  }

  /** One bad request and what it must get. */
  record Bad(
      String name,
      String method,
      String path,
      String token,
      String contentType,
      String body,
      Map<String, String> headers,
      int status,
      String type,
      String pointer) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Bad post(String name, String body, int status, String type, String pointer) {
    return new Bad(
        name,
        "POST",
        "/v1/events",
        ApiApp.ALEX,
        "application/json",
        body,
        Map.of(),
        status,
        type,
        pointer);
  }

  static Bad get(String name, String path, String token, int status, String type) {
    return new Bad(name, "GET", path, token, null, null, Map.of(), status, type, null);
  }

  static Stream<Bad> badRequests() {
    String ok = settings("x");
    String many = body(Collections.nCopies(11, ok).toArray(String[]::new));
    String big =
        body(event("settings.updated", "user", "{\"changedKeys\":[\"" + "k".repeat(600) + "\"]}"));
    String huge = body(Collections.nCopies(60, settings("y".repeat(120))).toArray(String[]::new));
    return Stream.of(
        post("malformed JSON", "{\"events\": [", 400, "invalid_request", null),
        post("a body that is an array", "[]", 400, "invalid_request", ""),
        post("an empty body", "", 400, "invalid_request", null),
        post("no events member", "{}", 400, "invalid_request", "/events"),
        post("events is an object", "{\"events\":{}}", 400, "invalid_request", "/events"),
        post("no event at all", "{\"events\":[]}", 400, "invalid_request", "/events"),
        post(
            "an unknown top member",
            "{\"events\":[" + ok + "],\"extra\":1}",
            400,
            "invalid_request",
            "/extra"),
        post("an event that is a number", "{\"events\":[1]}", 400, "invalid_request", "/events/0"),
        post(
            "no type",
            body("{\"resource\":{\"type\":\"user\",\"id\":\"" + USER + "\"},\"payload\":{}}"),
            400,
            "invalid_request",
            "/events/0/type"),
        post(
            "a type that is a number",
            body(ok.replace("\"settings.updated\"", "7")),
            400,
            "invalid_request",
            "/events/0/type"),
        post(
            "an unknown type",
            body(event("settings.removed", "user", "{}")),
            400,
            "unknown_event_type",
            "/events/0/type"),
        post(
            "no resource",
            body("{\"type\":\"settings.updated\",\"payload\":{\"changedKeys\":[]}}"),
            400,
            "invalid_request",
            "/events/0/resource"),
        post(
            "a resource that is a string",
            body(
                "{\"type\":\"settings.updated\",\"resource\":\"user\",\"payload\":{\"changedKeys\":[]}}"),
            400,
            "invalid_request",
            "/events/0/resource"),
        post(
            "a resource of the wrong type",
            body(event("settings.updated", "order", "{\"changedKeys\":[]}")),
            400,
            "invalid_request",
            "/events/0/resource/type"),
        post(
            "a resource id that is no UUID",
            body(ok.replace("\"id\":\"" + USER + "\"", "\"id\":\"user-7\"")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "no resource id",
            body(ok.replace(",\"id\":\"" + USER + "\"", "")),
            400,
            "invalid_request",
            "/events/0/resource/id"),
        post(
            "an actor that is no UUID",
            body(ok.replace("\"actor\":\"" + USER + "\"", "\"actor\":42")),
            400,
            "invalid_request",
            "/events/0/actor"),
        post(
            "no payload",
            body(
                "{\"type\":\"settings.updated\",\"resource\":{\"type\":\"user\",\"id\":\""
                    + USER
                    + "\"}}"),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload that is an array",
            body(event("settings.updated", "user", "[]")),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload field of the wrong type",
            body(event("settings.updated", "user", "{\"changedKeys\":{\"a\":1}}")),
            400,
            "invalid_request",
            "/events/0/payload/changedKeys"),
        post(
            "an unknown payload field",
            body(event("settings.updated", "user", "{\"changedKeys\":[],\"colour\":1}")),
            400,
            "invalid_request",
            "/events/0/payload/colour"),
        post(
            "a payload without its field",
            body(event("settings.updated", "user", "{}")),
            400,
            "invalid_request",
            "/events/0/payload"),
        post(
            "a payload over sync.maxPayloadBytes",
            big,
            413,
            "payload_too_large",
            "/events/0/payload"),
        post("a body over api.maxRequestBytes", huge, 413, "payload_too_large", null),
        post("more events than api.maxEventsPerRequest", many, 400, "invalid_request", "/events"),
        post("trailing text after the JSON", body(ok) + " x", 400, "invalid_request", null),
        post(
            "a key twice in one object",
            "{\"events\":[" + ok + "],\"events\":[" + ok + "]}",
            400,
            "invalid_request",
            null),
        post(
            "the second of two events is bad",
            body(ok, event("settings.updated", "user", "{\"changedKeys\":7}")),
            400,
            "invalid_request",
            "/events/1/payload/changedKeys"),
        new Bad(
            "a text body",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "text/plain",
            body(ok),
            Map.of(),
            415,
            "unsupported_media_type",
            null),
        new Bad(
            "an Idempotency-Key with a space",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Idempotency-Key", "a b"),
            400,
            "invalid_request",
            null),
        new Bad(
            "an Idempotency-Key too long",
            "POST",
            "/v1/events",
            ApiApp.ALEX,
            "application/json",
            body(ok),
            Map.of("Idempotency-Key", "k".repeat(256)),
            400,
            "invalid_request",
            null),
        new Bad(
            "no token",
            "POST",
            "/v1/events",
            null,
            "application/json",
            body(ok),
            Map.of(),
            401,
            "unauthorized",
            null),
        new Bad(
            "a wrong token",
            "POST",
            "/v1/events",
            "robin-token-guessed",
            "application/json",
            body(ok),
            Map.of(),
            401,
            "unauthorized",
            null),
        new Bad(
            "a basic scheme",
            "POST",
            "/v1/events",
            null,
            "application/json",
            body(ok),
            Map.of("Authorization", "Basic YWxleDpzZWNyZXQ="),
            401,
            "unauthorized",
            null),
        new Bad(
            "a token without events:append",
            "POST",
            "/v1/events",
            ApiApp.SAM,
            "application/json",
            body(ok),
            Map.of(),
            403,
            "forbidden",
            null),
        new Bad(
            "a token without events:read",
            "GET",
            "/v1/events",
            ApiApp.ROBIN,
            null,
            null,
            Map.of(),
            403,
            "forbidden",
            null),
        get("a negative after", "/v1/events?after=-1", ApiApp.SAM, 400, "invalid_request"),
        get(
            "an after that is no number",
            "/v1/events?after=abc",
            ApiApp.SAM,
            400,
            "invalid_request"),
        get(
            "an after beyond a long",
            "/v1/events?after=99999999999999999999",
            ApiApp.SAM,
            400,
            "invalid_request"),
        get("a limit of zero", "/v1/events?limit=0", ApiApp.SAM, 400, "invalid_request"),
        get("a huge limit", "/v1/events?limit=99999999999", ApiApp.SAM, 400, "invalid_request"),
        get(
            "an unknown type filter",
            "/v1/events?type=settings.removed",
            ApiApp.SAM,
            400,
            "unknown_event_type"),
        get("a read without a token", "/v1/events", null, 401, "unauthorized"),
        new Bad(
            "a bad Last-Event-ID",
            "GET",
            "/v1/events/stream",
            ApiApp.SAM,
            null,
            null,
            Map.of("Last-Event-ID", "seven"),
            400,
            "invalid_request",
            null),
        get(
            "a negative stream after",
            "/v1/events/stream?after=-5",
            ApiApp.SAM,
            400,
            "invalid_request"),
        get("consumers without admin:read", "/v1/consumers", ApiApp.SAM, 403, "forbidden"),
        new Bad(
            "a DELETE",
            "DELETE",
            "/v1/events",
            ApiApp.ALEX,
            null,
            null,
            Map.of(),
            405,
            "method_not_allowed",
            null),
        get("an unknown route", "/v1/nothing", ApiApp.ALEX, 404, "not_found"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void a_bad_request_gets_its_status_and_problem_type_and_writes_nothing(Bad bad) throws Exception {
    long before = head();
    HttpRequest.Builder b = app.request(bad.path(), bad.token());
    if (bad.body() != null) {
      b.method(bad.method(), HttpRequest.BodyPublishers.ofString(bad.body()));
    } else {
      b.method(bad.method(), HttpRequest.BodyPublishers.noBody());
    }
    if (bad.contentType() != null) {
      b.header("Content-Type", bad.contentType());
    }
    bad.headers().forEach(b::setHeader);
    HttpResponse<String> response = app.send(b.build());

    assertThat(response.statusCode()).isEqualTo(bad.status());
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = json(response);
    assertThat(problem.get("type").asText()).isEqualTo(bad.type());
    assertThat(problem.get("status").asInt()).isEqualTo(bad.status());
    assertThat(problem.get("title").asText()).isNotBlank();
    assertThat(problem.get("detail").asText()).isNotBlank();
    if (bad.pointer() != null) {
      assertThat(problem.get("pointer").asText()).isEqualTo(bad.pointer());
    }
    assertThat(response.body())
        .doesNotContain("Exception")
        .doesNotContain("at dev.bothy")
        .doesNotContain("select ")
        .doesNotContain("insert ")
        .doesNotContain(ApiApp.ALEX)
        .doesNotContain(ApiApp.SAM)
        .doesNotContain(ApiApp.ROBIN);
    if (bad.status() == 401) {
      assertThat(response.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"bothy\"");
    }
    assertThat(head()).isEqualTo(before);
  }

  @Test
  void an_idempotent_retry_gets_the_first_response_and_another_body_is_a_conflict()
      throws Exception {
    long before = head();
    String key = "order-" + Ids.newId();
    HttpResponse<String> first =
        app.post(body(settings("a"), settings("b")), ApiApp.ALEX, Map.of("Idempotency-Key", key));
    HttpResponse<String> retry =
        app.post(body(settings("a"), settings("b")), ApiApp.ALEX, Map.of("Idempotency-Key", key));
    HttpResponse<String> other =
        app.post(body(settings("c")), ApiApp.ALEX, Map.of("Idempotency-Key", key));

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(other.statusCode()).isEqualTo(409);
    assertThat(json(other).get("type").asText()).isEqualTo("idempotency_conflict");
    assertThat(head()).isEqualTo(before + 2);

    // The same key from another token is another key.
    HttpResponse<String> samsOwn =
        app.post(body(settings("a"), settings("b")), ApiApp.SAM, Map.of("Idempotency-Key", key));
    assertThat(samsOwn.statusCode()).as("sam may not append at all").isEqualTo(403);
  }

  @Test
  void concurrent_requests_with_one_key_append_once_and_all_get_the_same_response()
      throws Exception {
    long before = head();
    String key = "burst-" + Ids.newId();
    String request = body(settings("burst"));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(
            pool.submit(() -> app.post(request, ApiApp.ALEX, Map.of("Idempotency-Key", key))));
      }
      List<String> bodies = new ArrayList<>();
      for (Future<HttpResponse<String>> f : answers) {
        HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(201);
        bodies.add(r.body());
      }
      assertThat(bodies).containsOnly(bodies.get(0));
    } finally {
      pool.shutdownNow();
    }
    assertThat(head()).isEqualTo(before + 1);
  }

  @Test
  void a_page_is_capped_at_api_max_page_size_and_filters_by_type() throws Exception {
    long before = head();
    app.assembly()
        .unitOfWork()
        .run(() -> app.assembly().appender().append(EventLogFixture.drafts(USER, 60)));

    JsonNode page = json(app.get("/v1/events?after=" + before + "&limit=1000", ApiApp.SAM));
    assertThat(page.get("events")).hasSize(50);
    assertThat(page.get("next_after").asLong()).isEqualTo(before + 50);
    JsonNode defaults = json(app.get("/v1/events?after=" + before, ApiApp.SAM));
    assertThat(defaults.get("events")).as("api.defaultPageSize").hasSize(20);
    JsonNode filtered =
        json(app.get("/v1/events?after=" + before + "&type=settings.updated&limit=5", ApiApp.SAM));
    assertThat(filtered.get("events")).hasSize(5);
  }

  @Test
  void the_consumers_endpoint_shows_each_cursor_with_its_lag() throws Exception {
    app.assembly()
        .unitOfWork()
        .run(() -> app.assembly().appender().append(EventLogFixture.drafts(USER, 2)));
    long h = head();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO event_consumer_cursors (name, last_seq) VALUES ('webhooks', "
              + (h - 2)
              + ") ON CONFLICT (name) DO UPDATE SET last_seq = excluded.last_seq");
    }
    HttpResponse<String> response = app.get("/v1/consumers", ApiApp.ROBIN);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode webhooks = json(response).get("consumers").get(0);
    assertThat(webhooks.get("name").asText()).isEqualTo("webhooks");
    assertThat(webhooks.get("last_seq").asLong()).isEqualTo(h - 2);
    assertThat(webhooks.get("head_seq").asLong()).isGreaterThanOrEqualTo(h);
    assertThat(webhooks.get("lag").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(webhooks.get("oldest_pending_age_seconds").isNumber()).isTrue();
    assertThat(webhooks.get("updated_at").asText()).endsWith("Z");
  }

  /**
   * A Server-Sent Events client over its own connection, which {@link #close()} really closes (the
   * JDK HttpClient keeps a connection after its body stream is closed).
   */
  static final class Sse implements AutoCloseable {
    final java.net.HttpURLConnection connection;
    final BufferedReader reader;

    Sse(java.net.HttpURLConnection connection) throws IOException {
      this.connection = connection;
      this.reader =
          new BufferedReader(
              new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The next event (comments skipped): id, event name and data; null at the end. */
    String[] next() throws IOException {
      String id = null;
      String name = "message";
      StringBuilder data = new StringBuilder();
      String line;
      boolean any = false;
      while ((line = reader.readLine()) != null) {
        if (line.isEmpty()) {
          if (any) {
            return new String[] {id, name, data.toString()};
          }
          continue;
        }
        if (line.startsWith(":")) {
          continue;
        }
        any = true;
        if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("event: ")) {
          name = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
      return null;
    }

    @Override
    public void close() {
      connection.disconnect();
    }
  }

  private static Sse stream(String query, Map<String, String> headers) throws Exception {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection) app.uri("/v1/events/stream" + query).toURL().openConnection();
    c.setRequestProperty("Authorization", "Bearer " + ApiApp.SAM);
    headers.forEach(c::setRequestProperty);
    c.setReadTimeout(60_000);
    assertThat(c.getResponseCode()).isEqualTo(200);
    assertThat(c.getContentType()).startsWith("text/event-stream");
    return new Sse(c);
  }

  private static void waitForNoOpenStream() throws InterruptedException {
    com.codahale.metrics.Gauge<?> open =
        app.support.getEnvironment().metrics().getGauges().get("bothy.api.streams_open");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (((Number) open.getValue()).intValue() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(((Number) open.getValue()).intValue()).as("open streams").isZero();
  }

  @Test
  void a_stream_from_zero_gets_the_backlog_then_live_events_in_order_across_killed_listen_backends()
      throws Exception {
    waitForNoOpenStream();
    // Some backlog first.
    app.post(body(settings("backlog")), ApiApp.ALEX, Map.of());
    int writers = 2;
    int requests = 15;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try (Sse sse = stream("?after=0", Map.of())) {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < requests; i++) {
                    HttpResponse<String> r =
                        app.post(
                            body(settings("w"), settings("w"), settings("w")),
                            ApiApp.ALEX,
                            Map.of());
                    assertThat(r.statusCode()).isEqualTo(201);
                    if (i % 5 == 0) {
                      terminateTailListener();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
      long end = head();
      long expected = 1;
      while (expected <= end) {
        String[] e = sse.next();
        assertThat(e).as("the stream ended early").isNotNull();
        assertThat(e[1]).isEqualTo("message");
        assertThat(Long.parseLong(e[0])).isEqualTo(expected);
        assertThat(JSON.readTree(e[2]).get("seq").asLong()).isEqualTo(expected);
        expected++;
      }
    } finally {
      pool.shutdownNow();
    }

    // A reconnect with Last-Event-ID resumes right after it.
    long resumeAfter = head() - 5;
    try (Sse again = stream("?after=0", Map.of("Last-Event-ID", Long.toString(resumeAfter)))) {
      assertThat(again.next()[0]).isEqualTo(Long.toString(resumeAfter + 1));
    }
  }

  private static void terminateTailListener() {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bothy-tail'");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void a_client_that_stops_reading_is_dropped_with_a_resync_and_a_reader_gets_everything()
      throws Exception {
    waitForNoOpenStream();
    long start = head();
    int total = 40_000;
    try (Socket slow = new Socket()) {
      // A small receive buffer, so the server's writes block soon once nobody reads.
      slow.setReceiveBufferSize(4096);
      slow.connect(new java.net.InetSocketAddress("127.0.0.1", app.support.getLocalPort()));
      OutputStream out = slow.getOutputStream();
      out.write(
          ("GET /v1/events/stream?after="
                  + start
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + ApiApp.SAM
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      try (Sse fast = stream("?after=" + start, Map.of())) {
        AtomicLong fastAt = new AtomicLong(start);
        CompletableFuture<Long> received =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    long expected = start + 1;
                    while (expected <= start + total) {
                      String[] e = fast.next();
                      // A resync event has no id: the reading client was dropped.
                      if (e == null || !Long.toString(expected).equals(e[0])) {
                        return -expected;
                      }
                      fastAt.set(expected);
                      expected++;
                    }
                    return expected - 1;
                  } catch (IOException e) {
                    return Long.MIN_VALUE;
                  }
                });
        for (int i = 0; i < total / 100; i++) {
          app.assembly()
              .unitOfWork()
              .run(() -> app.assembly().appender().append(EventLogFixture.drafts(USER, 100)));
          // The reading client stays well within its buffer (tailSubscriberBuffer 2000), however
          // slow the machine, while the other one never reads.
          long appended = start + (i + 1) * 100L;
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (appended - fastAt.get() > 1000 && !received.isDone()) {
            assertThat(System.nanoTime()).as("the reading client keeps up").isLessThan(deadline);
            Thread.sleep(1);
          }
        }
        assertThat(received.get(120, TimeUnit.SECONDS))
            .as("the reading client got every event in order")
            .isEqualTo(start + total);
      }
      // Now read the slow one: it was dropped and told to resync.
      slow.setSoTimeout(30_000);
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(slow.getInputStream(), StandardCharsets.UTF_8));
      boolean resync = false;
      String line;
      while (!resync && (line = lines.readLine()) != null) {
        resync = line.equals("event: resync_required");
      }
      assertThat(resync).as("the slow client got resync_required").isTrue();
    }
  }

  @Test
  void api_max_streams_is_enforced_with_503_and_retry_after() throws Exception {
    waitForNoOpenStream();
    List<Sse> open = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        open.add(stream("", Map.of()));
      }
      HttpResponse<String> fifth = app.get("/v1/events/stream", ApiApp.SAM);
      assertThat(fifth.statusCode()).isEqualTo(503);
      assertThat(json(fifth).get("type").asText()).isEqualTo("too_many_streams");
      assertThat(fifth.headers().firstValue("Retry-After")).hasValue("7");
    } finally {
      for (Sse s : open) {
        s.close();
      }
    }
    waitForNoOpenStream();
    try (Sse again = stream("", Map.of())) {
      assertThat(again).isNotNull();
    }
  }

  @Test
  void the_openapi_document_is_served_without_a_token_and_requests_show_in_the_metrics()
      throws Exception {
    HttpResponse<String> doc = app.get("/openapi.json", null);
    assertThat(doc.statusCode()).isEqualTo(200);
    assertThat(json(doc).get("paths").has("/v1/events/stream")).isTrue();

    app.post(body(settings("m")), ApiApp.ALEX, Map.of());
    String prometheus =
        dev.bothy.testing.Http.get(app.support.getAdminPort(), "/prometheus").body();
    assertThat(prometheus)
        .contains(
            "bothy_api_request_seconds_count{bothy_route=\"POST /v1/events\",bothy_status=\"201\"}")
        .contains("bothy_api_streams_open")
        .contains("bothy_api_streamed_events_total");
  }
}
