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
import java.net.http.HttpResponse;
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
}
