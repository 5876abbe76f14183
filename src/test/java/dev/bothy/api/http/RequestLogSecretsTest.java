package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The request log records the path of a request and never its query string or its Authorization
 * header, whatever the log format asks for: a client that puts a token into the query (which the
 * API refuses) must not leave it in the log.
 */
class RequestLogSecretsTest {
  private static final String TOKEN_VALUE = "query-secret-5d2e8b7a";
  private static final String ACCESS_TOKEN_VALUE = "query-secret-9c4f1a36";

  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void a_token_in_the_query_string_leaves_no_value_in_the_request_log() throws Exception {
    HttpResponse<String> response =
        APP.app()
            .get(
                "/v1/events?after=0&token="
                    + TOKEN_VALUE
                    + "&access_token="
                    + ACCESS_TOKEN_VALUE
                    + "&limit=5",
                ApiApp.SAM);
    assertThat(response.statusCode()).isEqualTo(200);

    for (String file : List.of(ApiApp.REQUEST_LOG, ApiApp.REQUEST_LOG_EVERY_FIELD)) {
      List<String> lines = linesFor(file, "/v1/events");
      assertThat(lines).as("%s records the request by its path", file).isNotEmpty();
      assertThat(String.join("\n", lines))
          .as("%s holds no query value and no token", file)
          .doesNotContain(TOKEN_VALUE)
          .doesNotContain(ACCESS_TOKEN_VALUE)
          .doesNotContain("after=0")
          .doesNotContain("token=" + "query")
          .doesNotContain(ApiApp.SAM);
    }
  }

  /** The request log is written asynchronously: wait for the request's line. */
  private static List<String> linesFor(String file, String path) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<String> lines =
          APP.app().logLines(file).stream().filter(line -> line.contains(path)).toList();
      if (!lines.isEmpty() || System.nanoTime() > deadline) {
        return lines;
      }
      Thread.sleep(50);
    }
  }
}
