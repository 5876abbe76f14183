package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/events}: pages, their limits and the type filter. A read after an append is in
 * {@link PostEventsTest}, a read below the retained window in {@link GetEventsAfterRetentionTest}.
 */
class GetEventsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void a_page_is_capped_at_api_max_page_size_and_filters_by_type() throws Exception {
    long before = APP.app().head();
    APP.app().append(60);

    JsonNode page = json(APP.app().get("/v1/events?after=" + before + "&limit=1000", ApiApp.SAM));
    assertThat(page.get("events")).hasSize(50);
    assertThat(page.get("next_after").asLong()).isEqualTo(before + 50);
    JsonNode defaults = json(APP.app().get("/v1/events?after=" + before, ApiApp.SAM));
    assertThat(defaults.get("events")).as("api.defaultPageSize").hasSize(20);
    JsonNode filtered =
        json(
            APP.app()
                .get("/v1/events?after=" + before + "&type=settings.updated&limit=5", ApiApp.SAM));
    assertThat(filtered.get("events")).hasSize(5);
  }
}
