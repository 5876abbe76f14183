package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.HeldConnections;
import dev.bothy.testing.PgExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scrape of {@code /prometheus} while every connection of the pool is taken: the gauges that read
 * the database wait at most {@code database.metricsReadTimeout} in all, far below {@code
 * database.connectionTimeout}, and leave their series out instead of blocking the scrape.
 */
class ScrapeWithExhaustedPoolTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration READ_TIMEOUT = Duration.ofMillis(300);
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);
  private static final int POOL = 2;

  @Test
  void prometheus_answers_within_the_read_bound_while_the_pool_is_exhausted(@TempDir Path dir)
      throws Exception {
    ApiApp app =
        ApiApp.start(
            PG,
            dir,
            "database:\n  maxPoolSize: "
                + POOL
                + "\n  connectionTimeout: "
                + CONNECTION_TIMEOUT.toSeconds()
                + "s\n  metricsReadTimeout: "
                + READ_TIMEOUT.toMillis()
                + "ms\n");
    try {
      // With the pool free the series is there, once a read ends within the bound (a first read
      // on a busy machine may not).
      String free = scrape(app).body();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!free.contains("bothy_event_log_head_seq ") && System.nanoTime() < deadline) {
        Thread.sleep(100);
        free = scrape(app).body();
      }
      assertThat(free).contains("bothy_event_log_head_seq ");
      HeldConnections held = HeldConnections.take(app.unitOfWork(), POOL);
      try {
        // The gauges cache a read for a second: the scrape below must read again.
        Thread.sleep(1_100);

        long began = System.nanoTime();
        HttpResponse<String> response = scrape(app);
        Duration took = Duration.ofNanos(System.nanoTime() - began);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(took).isLessThan(READ_TIMEOUT.plusSeconds(2));
        assertThat(response.body())
            .as("a read that did not finish leaves its series out")
            .doesNotContain("bothy_event_log_head_seq ")
            .contains("bothy_event_log_appended_events");
      } finally {
        held.close();
      }
    } finally {
      app.close();
    }
  }

  private static HttpResponse<String> scrape(ApiApp app) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.adminPort() + "/prometheus"))
            .timeout(Duration.ofSeconds(120))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
