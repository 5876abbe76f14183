package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.json;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiApp.Sse;
import dev.bothy.wire.ApiApp.StreamEvent;
import dev.bothy.wire.ApiAppExtension;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/events/stream}: the backlog then live events in order while the tail's LISTEN
 * connection is killed, the resume after {@code Last-Event-ID}, and {@code api.maxStreams}. A
 * client that stops reading is in {@link SlowStreamClientTest}.
 */
class EventStreamTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void a_stream_from_zero_gets_the_backlog_then_live_events_in_order_across_killed_listen_backends()
      throws Exception {
    APP.app().waitForNoOpenStream();
    // Some backlog first.
    APP.app().post(body(settings("backlog")), ApiApp.ALEX, Map.of());
    int writers = 2;
    int requests = 15;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try (Sse sse = APP.app().stream("?after=0", Map.of())) {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < requests; i++) {
                    HttpResponse<String> r =
                        APP.app()
                            .post(
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
      long end = APP.app().head();
      long expected = 1;
      while (expected <= end) {
        Optional<StreamEvent> next = sse.next();
        assertThat(next).as("the stream ended early").isPresent();
        StreamEvent e = next.get();
        assertThat(e.event()).isEqualTo("message");
        assertThat(e.id()).hasValue(expected);
        assertThat(JSON.readTree(e.data()).get("seq").asLong()).isEqualTo(expected);
        expected++;
      }
    } finally {
      pool.shutdownNow();
    }

    // A reconnect with Last-Event-ID resumes right after it.
    long resumeAfter = APP.app().head() - 5;
    try (Sse again =
        APP.app().stream("?after=0", Map.of("Last-Event-ID", Long.toString(resumeAfter)))) {
      assertThat(again.next().orElseThrow().id()).hasValue(resumeAfter + 1);
    }
  }

  private static void terminateTailListener() {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bothy-tail'");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void api_max_streams_is_enforced_with_503_and_retry_after() throws Exception {
    APP.app().waitForNoOpenStream();
    List<Sse> open = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        open.add(APP.app().stream("", Map.of()));
      }
      HttpResponse<String> fifth = APP.app().get("/v1/events/stream", ApiApp.SAM);
      assertThat(fifth.statusCode()).isEqualTo(503);
      assertThat(json(fifth).get("type").asText()).isEqualTo("too_many_streams");
      assertThat(fifth.headers().firstValue("Retry-After")).hasValue("7");
      HttpResponse<String> head = APP.app().headRequest("/v1/events/stream", ApiApp.SAM, Map.of());
      assertThat(head.statusCode()).as("HEAD answers what a GET would get").isEqualTo(503);
      assertThat(head.headers().firstValue("Retry-After")).hasValue("7");
      assertThat(head.body()).isEmpty();
    } finally {
      for (Sse s : open) {
        s.close();
      }
    }
    APP.app().waitForNoOpenStream();
    try (Sse again = APP.app().stream("", Map.of())) {
      assertThat(again).isNotNull();
    }
  }

  @Test
  void head_requests_on_the_stream_take_no_slot_and_a_stream_still_opens() throws Exception {
    APP.app().waitForNoOpenStream();
    // Three times api.maxStreams (4): before the fix each HEAD kept a slot for good.
    for (int i = 0; i < 12; i++) {
      HttpResponse<String> head =
          APP.app().headRequest("/v1/events/stream?after=0", ApiApp.SAM, Map.of());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
      assertThat(head.body()).isEmpty();
    }
    // The same over raw sockets that close after the status line, without reading the rest: the
    // status line shows the server took the request before the socket goes.
    for (int i = 0; i < 12; i++) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", APP.app().port()));
        s.setSoTimeout(10_000);
        s.getOutputStream().write(request("HEAD", "?after=0"));
        s.getOutputStream().flush();
        assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
      }
    }
    assertThat(APP.app().openStreams()).isZero();
    try (Sse sse = APP.app().stream("?after=0", Map.of())) {
      assertThat(sse).isNotNull();
      assertThat(APP.app().openStreams()).isEqualTo(1);
    }
    HttpResponse<String> unauthorized = APP.app().headRequest("/v1/events/stream", null, Map.of());
    assertThat(unauthorized.statusCode()).as("HEAD needs the token too").isEqualTo(401);
  }

  /** How a client vanishes without the server reading an error from it. */
  enum Vanish {
    CLOSE,
    HALF_CLOSE_THEN_CLOSE,
    RESET
  }

  @Test
  void a_stream_whose_client_vanished_frees_its_slot_within_a_few_heartbeats() throws Exception {
    for (Vanish how : Vanish.values()) {
      APP.app().waitForNoOpenStream();
      Socket s = new Socket();
      s.connect(new InetSocketAddress("127.0.0.1", APP.app().port()));
      s.getOutputStream().write(request("GET", ""));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      // The status line: the stream is open and holds a slot.
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).endsWith("200");
      assertThat(APP.app().openStreams()).as(how.name()).isEqualTo(1);
      switch (how) {
        case CLOSE -> s.close();
        case HALF_CLOSE_THEN_CLOSE -> {
          s.shutdownOutput();
          s.close();
        }
        case RESET -> {
          s.setSoLinger(true, 0);
          s.close();
        }
      }
      // api.streamHeartbeat is 200ms here: a failed heartbeat frees the slot within a few.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (APP.app().openStreams() != 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(APP.app().openStreams()).as("open streams after %s", how).isZero();
    }
    assertThat(APP.app().errorLines()).isEmpty();
  }

  private static byte[] request(String method, String query) {
    return (method
            + " /v1/events/stream"
            + query
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + ApiApp.SAM
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void a_stream_after_the_largest_long_is_open_and_waits() throws Exception {
    APP.app().waitForNoOpenStream();
    APP.app().append(2);
    try (Sse sse = APP.app().stream("?after=" + Long.MAX_VALUE, Map.of())) {
      assertThat(sse).isNotNull();
      assertThat(APP.app().openStreams()).isEqualTo(1);
    }
    APP.app().waitForNoOpenStream();
    try (Sse sse = APP.app().stream("", Map.of("Last-Event-ID", Long.toString(Long.MAX_VALUE)))) {
      assertThat(sse).isNotNull();
      assertThat(APP.app().openStreams()).isEqualTo(1);
    }
  }
}
