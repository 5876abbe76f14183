package dev.bothy.console.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import dev.bothy.wire.RawHttp;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's JSON API on the admin port of a running {@code all} process whose jobs table holds
 * a million jobs: tokens and scopes, the security headers, keyset pages, capped counts, actions and
 * their log line, and problem documents for bad requests.
 */
class ConsoleApiTest {
  /** Filler jobs: enough that a count or a page that read them all would show. */
  static final int FILLER = 1_000_000;

  /** Discarded jobs of their own kind, the dead letters the tests page through and retry. */
  static final int DISCARDED = 7;

  /** Discarded jobs of another kind, which the action tests retry and cancel. */
  static final int TO_ACT_ON = 5;

  /** A queue no worker serves, so a retried job stays available for the test to see. */
  static final String QUEUE = "console_test";

  // One statement: generate_series makes the rows in the database, no round trip per row.
  private static final String INSERT_FILLER =
      "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
          + " created_at, finalized_at) SELECT gen_random_uuid(), 'console.filler', '"
          + QUEUE
          + "', '{}'::jsonb, 'completed', 3, 2, now(), now(), now()"
          + " FROM generate_series(1, "
          + FILLER
          + ")";

  private static String insertDiscarded(String kind, int count) {
    return INSERT_DISCARDED
        .replace("console.probe", kind)
        .replace("1, " + DISCARDED + ")", "1, " + count + ")");
  }

  private static final String INSERT_DISCARDED =
      "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts, priority,"
          + " scheduled_at, created_at, finalized_at, errors) SELECT gen_random_uuid(),"
          + " 'console.probe', '"
          + QUEUE
          + "', '{}'::jsonb, 'discarded', 3, 3, 2, now(), now(), now(),"
          + " jsonb_build_array(jsonb_build_object('at', now(), 'attempt', 3, 'kind', 'error',"
          + " 'error', 'java.lang.IllegalStateException', 'message', 'probe failed'))"
          + " FROM generate_series(1, "
          + DISCARDED
          + ")";

  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          "",
          pg -> {
            try (Connection c = pg.owner().getConnection();
                Statement s = c.createStatement()) {
              s.execute(INSERT_FILLER);
              s.execute(INSERT_DISCARDED);
              s.execute(insertDiscarded("console.retry", TO_ACT_ON));
              s.execute("ANALYZE jobs");
            }
          });

  private ConsoleClient console() {
    return new ConsoleClient(APP.app());
  }

  @Test
  void the_api_needs_a_bearer_token_with_admin_read() throws Exception {
    HttpResponse<String> none = console().get("/console/api/overview", null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(none.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(ConsoleClient.json(none).get("type").asText()).isEqualTo("unauthorized");

    HttpResponse<String> unknown = console().get("/console/api/overview", "not-a-configured-token");
    assertThat(unknown.statusCode()).isEqualTo(401);

    HttpResponse<String> reader = console().get("/console/api/jobs", ApiApp.SAM);
    assertThat(reader.statusCode()).isEqualTo(403);
    assertThat(ConsoleClient.json(reader).get("detail").asText())
        .isEqualTo("The token sam lacks the scope admin:read.");
  }

  @Test
  void a_token_in_the_query_is_not_read() throws Exception {
    HttpResponse<String> query =
        console().get("/console/api/overview?access_token=" + ApiApp.ROBIN, null);
    assertThat(query.statusCode()).isEqualTo(401);
  }

  @Test
  void the_overview_shows_the_caller_the_log_and_the_consumers() throws Exception {
    APP.app().append(3);
    HttpResponse<String> response = console().get("/console/api/overview", ApiApp.ROBIN);
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = ConsoleClient.json(response);
    assertThat(body.at("/token/name").asText()).isEqualTo("robin");
    assertThat(body.at("/token/can_act").asBoolean()).isFalse();
    assertThat(body.at("/token/read_only").asBoolean()).isFalse();
    assertThat(body.at("/log/head_seq").asLong()).isEqualTo(APP.app().head()).isPositive();
    assertThat(body.at("/log/oldest_retained_seq").asLong()).isEqualTo(1);
    assertThat(body.get("relay").isNull()).isTrue();
    // This process appended: its timer of the event_seq lock hold has units, in milliseconds.
    JsonNode lock = body.at("/log/seq_lock_held");
    assertThat(lock.get("units").asLong()).isPositive();
    assertThat(lock.get("p50_ms").asDouble()).isGreaterThan(0);
    assertThat(lock.get("p99_ms").asDouble()).isGreaterThanOrEqualTo(lock.get("p50_ms").asDouble());
    assertThat(lock.get("max_ms").asDouble()).isGreaterThanOrEqualTo(lock.get("p99_ms").asDouble());
    // The log transport: bus consumers are the worker consumer bus, no NATS durable.
    assertThat(body.get("bus_consumers").isArray()).isTrue();
    assertThat(body.get("bus_consumers")).isEmpty();
    List<String> names = new ArrayList<>();
    body.get("consumers").forEach(c -> names.add(c.get("name").asText()));
    assertThat(names).contains("webhooks");
    for (JsonNode c : body.get("consumers")) {
      assertThat(c.get("lag").asLong())
          .isEqualTo(body.at("/log/head_seq").asLong() - c.get("last_seq").asLong());
      assertThat(c.get("pending_age_seconds").asDouble()).isGreaterThanOrEqualTo(0);
    }
    assertThat(
            ConsoleClient.json(console().get("/console/api/overview", ApiApp.ROBIN_ADMIN))
                .at("/token/can_act")
                .asBoolean())
        .isTrue();
  }

  @Test
  void every_console_response_carries_a_strict_content_security_policy() throws Exception {
    for (HttpResponse<String> r :
        List.of(
            console().get("/console/api/overview", ApiApp.ROBIN),
            console().get("/console/api/overview", null),
            console().get("/console/api/nothing-here", ApiApp.ROBIN))) {
      assertThat(r.headers().firstValue("Content-Security-Policy"))
          .hasValue(SecurityHeaders.CONTENT_SECURITY_POLICY);
      assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
      assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
    }
    assertThat(SecurityHeaders.CONTENT_SECURITY_POLICY)
        .contains("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'")
        .doesNotContain("unsafe-inline", "unsafe-eval", "*");
  }

  @Test
  void the_count_over_a_million_jobs_stops_at_the_cap_and_says_so() throws Exception {
    JsonNode all = ConsoleClient.json(console().get("/console/api/jobs?limit=5", ApiApp.ROBIN));
    assertThat(all.at("/count/value").asLong()).isEqualTo(10_000);
    assertThat(all.at("/count/capped").asBoolean()).isTrue();
    assertThat(all.at("/count/cap").asInt()).isEqualTo(10_000);
    assertThat(all.at("/count/method").asText()).isEqualTo(ConsoleJson.Count.METHOD);
    assertThat(all.get("jobs")).hasSize(5);
    assertThat(all.get("next_before").isTextual()).isTrue();

    JsonNode completed =
        ConsoleClient.json(
            console().get("/console/api/jobs?state=completed&kind=console.filler", ApiApp.ROBIN));
    assertThat(completed.at("/count/capped").asBoolean()).isTrue();
    assertThat(completed.get("jobs")).hasSize(50);
  }

  @Test
  void discarded_jobs_page_by_key_with_an_exact_count() throws Exception {
    List<String> seen = new ArrayList<>();
    String before = "";
    int pages = 0;
    do {
      JsonNode page =
          ConsoleClient.json(
              console()
                  .get(
                      "/console/api/jobs?state=discarded&kind=console.probe&limit=3&before="
                          + before,
                      ApiApp.ROBIN));
      assertThat(page.at("/count/value").asLong()).isEqualTo(DISCARDED);
      assertThat(page.at("/count/capped").asBoolean()).isFalse();
      for (JsonNode job : page.get("jobs")) {
        assertThat(job.get("state").asText()).isEqualTo("discarded");
        assertThat(job.at("/errors/0/message").asText()).isEqualTo("probe failed");
        assertThat(job.has("args")).isFalse();
        seen.add(job.get("id").asText());
      }
      before = page.get("next_before").isNull() ? null : page.get("next_before").asText();
      pages++;
    } while (before != null && pages < 10);
    assertThat(pages).isEqualTo(3);
    assertThat(seen).hasSize(DISCARDED).doesNotHaveDuplicates();
    // PostgreSQL orders uuid bytewise, unsigned: the order of the lower-case text, not of
    // java.util.UUID.compareTo, which compares signed longs.
    List<String> descending = new ArrayList<>(seen);
    descending.sort(Collections.reverseOrder());
    assertThat(seen).isEqualTo(descending);
  }

  @Test
  void pages_of_the_million_follow_each_other_without_overlap() throws Exception {
    JsonNode first =
        ConsoleClient.json(
            console().get("/console/api/jobs?kind=console.filler&limit=500", ApiApp.ROBIN));
    JsonNode second =
        ConsoleClient.json(
            console()
                .get(
                    "/console/api/jobs?kind=console.filler&limit=500&before="
                        + first.get("next_before").asText(),
                    ApiApp.ROBIN));
    List<String> a = ids(first);
    List<String> b = ids(second);
    assertThat(a).hasSize(500);
    assertThat(b).hasSize(500);
    assertThat(a.get(a.size() - 1)).isEqualTo(first.get("next_before").asText());
    // Text order of lower-case uuids is PostgreSQL's uuid order.
    assertThat(b.get(0)).isLessThan(a.get(a.size() - 1));
    assertThat(b).doesNotContainAnyElementsOf(a);
  }

  @Test
  void retry_needs_admin_write_and_logs_the_token_name_never_the_token() throws Exception {
    String id = firstDiscarded();
    HttpResponse<String> reader =
        console().post("/console/api/jobs/" + id + "/retry", ApiApp.ROBIN, "");
    assertThat(reader.statusCode()).isEqualTo(403);
    assertThat(ConsoleClient.json(reader).get("detail").asText())
        .isEqualTo("The token robin lacks the scope admin:write.");
    assertThat(state(id)).isEqualTo("discarded");

    HttpResponse<String> writer =
        console().post("/console/api/jobs/" + id + "/retry", ApiApp.ROBIN_ADMIN, "");
    assertThat(writer.statusCode()).isEqualTo(200);
    assertThat(ConsoleClient.json(writer).get("state").asText()).isEqualTo("available");
    assertThat(ConsoleClient.json(writer).get("attempt").asInt()).isZero();
    assertThat(discardedIds()).doesNotContain(id);
    assertThat(APP.app().loggedLines())
        .contains("console action: action=retry job.id=" + id + " token.name=robin-admin")
        .noneMatch(line -> line.contains(ApiApp.ROBIN_ADMIN));

    HttpResponse<String> again =
        console().post("/console/api/jobs/" + id + "/retry", ApiApp.ROBIN_ADMIN, "");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(ConsoleClient.json(again).get("type").asText()).isEqualTo("conflict");
  }

  @Test
  void a_bulk_cancel_reports_each_job_in_the_order_asked() throws Exception {
    String discarded = firstDiscarded();
    String retried = discarded;
    assertThat(
            console()
                .post("/console/api/jobs/" + retried + "/retry", ApiApp.ROBIN_ADMIN, "")
                .statusCode())
        .isEqualTo(200);
    String completed =
        ConsoleClient.json(console().get("/console/api/jobs?state=completed&limit=1", ApiApp.ROBIN))
            .at("/jobs/0/id")
            .asText();
    String unknown = UUID.randomUUID().toString();
    HttpResponse<String> response =
        console()
            .post(
                "/console/api/jobs/cancel",
                ApiApp.ROBIN_ADMIN,
                "{\"ids\": [\"" + retried + "\", \"" + completed + "\", \"" + unknown + "\"]}");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode results = ConsoleClient.json(response).get("results");
    assertThat(results).hasSize(3);
    assertThat(results.get(0).get("outcome").asText()).isEqualTo("done");
    assertThat(results.get(0).get("state").asText()).isEqualTo("cancelled");
    assertThat(results.get(1).get("outcome").asText()).isEqualTo("conflict");
    assertThat(results.get(1).get("state").isNull()).isTrue();
    assertThat(results.get(2).get("outcome").asText()).isEqualTo("not_found");
    assertThat(state(retried)).isEqualTo("cancelled");
    assertThat(state(completed)).isEqualTo("completed");
  }

  @Test
  void bad_requests_are_problem_documents_that_change_nothing() throws Exception {
    String tooMany =
        IntStream.range(0, 101)
            .mapToObj(i -> "\"" + UUID.randomUUID() + "\"")
            .collect(Collectors.joining(",", "{\"ids\": [", "]}"));
    String untouched = firstDiscarded();
    String typo = "{\"ids\": [\"" + untouched + "\", \"not-a-uuid\"]}";
    record Bad(String method, String path, String body, int status, String type) {}
    for (Bad bad :
        List.of(
            new Bad("GET", "/console/api/jobs?state=bogus", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?limit=0", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?limit=501", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?limit=ten", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?before=xyz", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?kind=%00", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs?kind=webhooks", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs/not-a-uuid", null, 400, "invalid_request"),
            new Bad("GET", "/console/api/jobs/" + UUID.randomUUID(), null, 404, "not_found"),
            new Bad("GET", "/console/api/nothing-here", null, 404, "not_found"),
            new Bad("POST", "/console/api/jobs/retry", tooMany, 400, "invalid_request"),
            new Bad("POST", "/console/api/jobs/retry", typo, 400, "invalid_request"),
            new Bad("POST", "/console/api/jobs/retry", "{\"ids\": []}", 400, "invalid_request"),
            new Bad("POST", "/console/api/jobs/retry", "[1, 2", 400, "invalid_request"),
            new Bad("DELETE", "/console/api/jobs/retry", null, 405, "method_not_allowed"))) {
      HttpResponse<String> r =
          switch (bad.method()) {
            case "GET" -> console().get(bad.path(), ApiApp.ROBIN_ADMIN);
            case "POST" -> console().post(bad.path(), ApiApp.ROBIN_ADMIN, bad.body());
            default -> console().delete(bad.path(), ApiApp.ROBIN_ADMIN);
          };
      assertThat(r.statusCode()).as(bad.toString()).isEqualTo(bad.status());
      assertThat(r.headers().firstValue("Content-Type"))
          .as(bad.toString())
          .hasValue("application/problem+json");
      JsonNode problem = ConsoleClient.json(r);
      assertThat(problem.get("type").asText()).as(bad.toString()).isEqualTo(bad.type());
      assertThat(problem.get("status").asInt()).isEqualTo(bad.status());
      assertThat(problem.get("detail").asText())
          .as(bad.toString())
          .isNotBlank()
          .doesNotContain("SQLSTATE");
    }
    assertThat(state(untouched)).isEqualTo("discarded");
  }

  private String firstDiscarded() throws Exception {
    return discardedIds().get(0);
  }

  private List<String> discardedIds() throws Exception {
    JsonNode page =
        ConsoleClient.json(
            console().get("/console/api/jobs?state=discarded&kind=console.retry", ApiApp.ROBIN));
    List<String> ids = new ArrayList<>();
    page.get("jobs").forEach(j -> ids.add(j.get("id").asText()));
    return ids;
  }

  private String state(String id) throws Exception {
    return ConsoleClient.json(console().get("/console/api/jobs/" + id, ApiApp.ROBIN))
        .get("state")
        .asText();
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("jobs").forEach(j -> ids.add(j.get("id").asText()));
    return ids;
  }

  /**
   * A refused action whose body has not arrived says {@code Connection: close}: the admin port
   * closes that connection, and a browser or client must not send its next request on it.
   */
  @Test
  void a_refused_action_before_its_body_arrives_says_the_connection_closes() throws Exception {
    String request =
        "POST /console/api/jobs/"
            + firstDiscarded()
            + "/retry HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Authorization: Bearer "
            + ApiApp.ROBIN
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: 64\r\n\r\n";
    RawHttp.Answer answer = RawHttp.exchange(APP.app().adminPort(), request);
    assertThat(answer.status()).isEqualTo(403);
    assertThat(answer.header("Connection")).hasValue("close");
  }
}
