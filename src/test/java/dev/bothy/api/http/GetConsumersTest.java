package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /v1/consumers}: each consumer's cursor with its lag behind the head. */
class GetConsumersTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void the_consumers_endpoint_shows_each_cursor_with_its_lag() throws Exception {
    APP.app().append(2);
    long h = APP.app().head();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          // push: the all role runs the webhooks consumer, which would move its own cursor.
          "INSERT INTO event_consumer_cursors (name, last_seq) VALUES ('push', "
              + (h - 2)
              + ") ON CONFLICT (name) DO UPDATE SET last_seq = excluded.last_seq");
    }
    HttpResponse<String> response = APP.app().get("/v1/consumers", ApiApp.ROBIN);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode consumers = json(response).get("consumers");
    // In name order; the all role registers bus (flow 00's consumer) and webhooks too.
    assertThat(consumers.findValuesAsText("name")).containsExactly("bus", "push", "webhooks");
    JsonNode push = consumers.get(1);
    assertThat(push.get("last_seq").asLong()).isEqualTo(h - 2);
    assertThat(push.get("head_seq").asLong()).isGreaterThanOrEqualTo(h);
    assertThat(push.get("lag").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(push.get("oldest_pending_age_seconds").isNumber()).isTrue();
    assertThat(push.get("updated_at").asText()).endsWith("Z");
  }
}
