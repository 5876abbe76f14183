package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.json;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /openapi.json} as the running role serves it, and the API's request and stream metrics
 * on the admin connector. The document's content is checked in {@code OpenApiDocumentTest}.
 */
class ServedOpenApiAndMetricsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void the_openapi_document_is_served_without_a_token_and_requests_show_in_the_metrics()
      throws Exception {
    HttpResponse<String> doc = APP.app().get("/openapi.json", null);
    assertThat(doc.statusCode()).isEqualTo(200);
    assertThat(json(doc).get("paths").has("/v1/events/stream")).isTrue();

    APP.app().post(body(settings("m")), ApiApp.ALEX, Map.of());
    String prometheus = Http.get(APP.app().adminPort(), "/prometheus").body();
    assertThat(prometheus)
        .contains(
            "bothy_api_request_seconds_count{bothy_route=\"POST /v1/events\",bothy_status=\"201\"}")
        .contains("bothy_api_streams_open")
        .contains("bothy_api_streamed_events_total");
  }
}
