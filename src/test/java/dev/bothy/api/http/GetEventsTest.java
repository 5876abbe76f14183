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

  @Test
  void an_after_past_the_head_up_to_the_largest_long_is_an_empty_page_not_a_resync()
      throws Exception {
    APP.app().append(3);
    long head = APP.app().head();
    for (long after : new long[] {head, head + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
      var response = APP.app().get("/v1/events?after=" + after, ApiApp.SAM);
      assertThat(response.statusCode()).as("after=%d", after).isEqualTo(200);
      JsonNode page = json(response);
      assertThat(page.get("events")).as("after=%d", after).isEmpty();
      assertThat(page.get("next_after").asLong()).isEqualTo(after);
    }
    assertThat(APP.app().errorLines()).isEmpty();
  }
}
