package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v1/consumers}: each consumer's cursor with its lag behind the head. */
class GetConsumersTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir static Path dir;

  private static ApiApp app;

  @BeforeAll
  static void start() throws Exception {
    app = ApiApp.start(PG, dir, ApiApp.SMALL_SYNC_LIMITS);
  }

  @AfterAll
  static void stopAndSearchTheLogs() throws IOException {
    if (app != null) {
      app.stopAndSearchTheLogs();
    }
  }

  @Test
  void the_consumers_endpoint_shows_each_cursor_with_its_lag() throws Exception {
    app.append(2);
    long h = app.head();
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
}
