package dev.bothy.console.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's dead letter and webhook routes on a running {@code all} process: keyset pages and
 * capped counts, a dead letter with its error history, a replay with its scope, log line and
 * conflict, the attempt log of a subscription, and their bad input.
 */
class ConsoleAdminPagesTest {
  static final int OPEN = 7;
  static final int ATTEMPTS = 25;

  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          "console:\n  countCap: 20\n",
          pg -> {
            try (Connection c = pg.owner().getConnection()) {
              ConsoleFixtures.deadLetters(c, OPEN);
              ConsoleFixtures.webhooks(c, ATTEMPTS);
            }
          });

  private ConsoleClient console() {
    return new ConsoleClient(APP.app());
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> r = console().get(path, ApiApp.ROBIN);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return ConsoleClient.json(r);
  }

  @Test
  void open_dead_letters_page_by_key_newest_death_first_with_an_exact_count() throws Exception {
    List<String> seen = new ArrayList<>();
    List<String> deaths = new ArrayList<>();
    String before = "";
    int pages = 0;
    do {
      JsonNode page = get("/console/api/dead-letters?limit=3&before=" + before);
      assertThat(page.at("/count/value").asLong()).isEqualTo(OPEN);
      assertThat(page.at("/count/capped").asBoolean()).isFalse();
      for (JsonNode l : page.get("dead_letters")) {
        assertThat(l.get("open").asBoolean()).isTrue();
        assertThat(l.get("replayed_at").isNull()).isTrue();
        assertThat(l.has("errors")).as("a page leaves the history out").isFalse();
        assertThat(l.has("payload")).isFalse();
        seen.add(l.get("id").asText());
        deaths.add(l.get("dead_at").asText());
      }
      before = page.get("next_before").isNull() ? null : page.get("next_before").asText();
      pages++;
    } while (before != null && pages < 10);
    assertThat(pages).isEqualTo(3);
    assertThat(seen).hasSize(OPEN).doesNotHaveDuplicates();
    List<String> newestFirst = new ArrayList<>(deaths);
    newestFirst.sort(java.util.Comparator.comparing(java.time.Instant::parse).reversed());
    assertThat(deaths).isEqualTo(newestFirst);

    JsonNode all = get("/console/api/dead-letters?all=true&limit=50");
    assertThat(all.get("dead_letters")).hasSize(OPEN + 1);
    assertThat(all.at("/count/value").asLong()).isEqualTo(OPEN + 1);
  }

  @Test
  void a_dead_letter_shows_its_error_history_oldest_first() throws Exception {
    String newest = get("/console/api/dead-letters?limit=1").at("/dead_letters/0/id").asText();
    JsonNode letter = get("/console/api/dead-letters/" + newest);
    assertThat(letter.get("handler").asText()).isEqualTo(ConsoleFixtures.HANDLER + "1");
    assertThat(letter.get("errors")).hasSize(2);
    assertThat(letter.at("/errors/0/kind").asText()).isEqualTo("unavailable");
    assertThat(letter.at("/errors/0/deliveries").asInt()).isEqualTo(10);
    assertThat(letter.at("/errors/1/kind").asText()).isEqualTo("invalid");
    assertThat(letter.at("/errors/1/message").asText()).isEqualTo("no such account");
  }

  @Test
  void a_replay_needs_admin_write_leaves_the_open_list_and_is_logged() throws Exception {
    String id = get("/console/api/dead-letters?limit=50").at("/dead_letters/6/id").asText();

    HttpResponse<String> reader =
        console().post("/console/api/dead-letters/" + id + "/replay", ApiApp.ROBIN, "");
    assertThat(reader.statusCode()).isEqualTo(403);
    assertThat(ConsoleClient.json(reader).get("type").asText()).isEqualTo("forbidden");
    assertThat(get("/console/api/dead-letters/" + id).get("open").asBoolean()).isTrue();

    HttpResponse<String> writer =
        console().post("/console/api/dead-letters/" + id + "/replay", ApiApp.ROBIN_ADMIN, "");
    assertThat(writer.statusCode()).isEqualTo(200);
    JsonNode replayed = ConsoleClient.json(writer);
    assertThat(replayed.get("open").asBoolean()).isFalse();
    assertThat(replayed.get("replays").asInt()).isEqualTo(1);
    assertThat(replayed.get("errors")).hasSize(1);
    assertThat(openIds()).doesNotContain(id);
    assertThat(APP.app().loggedLines())
        .contains("console action: action=replay dead_letter.id=" + id + " token.name=robin-admin")
        .noneMatch(line -> line.contains(ApiApp.ROBIN_ADMIN));

    HttpResponse<String> again =
        console().post("/console/api/dead-letters/" + id + "/replay", ApiApp.ROBIN_ADMIN, "");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(ConsoleClient.json(again).get("type").asText()).isEqualTo("conflict");
  }

  @Test
  void subscriptions_page_by_id_without_their_secrets() throws Exception {
    JsonNode first = get("/console/api/webhooks/subscriptions?limit=1");
    assertThat(first.get("subscriptions")).hasSize(1);
    assertThat(first.at("/subscriptions/0/id").asText()).isEqualTo(ConsoleFixtures.SUBSCRIPTION);
    assertThat(first.at("/subscriptions/0/url").asText())
        .isEqualTo("https://hooks.example.com/alex");
    assertThat(first.at("/subscriptions/0/state").asText()).isEqualTo("active");
    assertThat(first.toString()).doesNotContain("whsec_").doesNotContain("secret");
    JsonNode second =
        get(
            "/console/api/webhooks/subscriptions?limit=1&after="
                + first.get("next_after").asText());
    assertThat(second.at("/subscriptions/0/id").asText()).isEqualTo(ConsoleFixtures.QUIET);
    assertThat(second.get("next_after").isNull()).isTrue();
    assertThat(
            get("/console/api/webhooks/subscriptions/" + ConsoleFixtures.QUIET).get("id").asText())
        .isEqualTo(ConsoleFixtures.QUIET);
  }

  @Test
  void the_attempt_log_pages_by_key_newest_first_with_a_capped_count() throws Exception {
    String base = "/console/api/webhooks/subscriptions/" + ConsoleFixtures.SUBSCRIPTION;
    List<String> seen = new ArrayList<>();
    String before = "";
    int pages = 0;
    JsonNode firstPage = null;
    do {
      JsonNode page = get(base + "/attempts?limit=4&before=" + before);
      if (firstPage == null) {
        firstPage = page;
      }
      assertThat(page.at("/count/value").asLong()).isEqualTo(20);
      assertThat(page.at("/count/capped").asBoolean()).isTrue();
      page.get("attempts").forEach(a -> seen.add(a.get("id").asText()));
      before = page.get("next_before").isNull() ? null : page.get("next_before").asText();
      pages++;
    } while (before != null && pages < 20);
    assertThat(seen).hasSize(ATTEMPTS).doesNotHaveDuplicates();
    assertThat(pages).isEqualTo(7);
    JsonNode newest = firstPage.at("/attempts/0");
    assertThat(newest.get("outcome").asText()).isEqualTo("failed");
    assertThat(newest.get("response_status").asInt()).isEqualTo(503);
    assertThat(newest.get("response_body").asText()).isEqualTo("try later");
    assertThat(newest.get("duration_ms").asLong()).isEqualTo(12);

    JsonNode quiet =
        get("/console/api/webhooks/subscriptions/" + ConsoleFixtures.QUIET + "/attempts");
    assertThat(quiet.get("attempts")).isEmpty();
    assertThat(quiet.at("/count/value").asLong()).isZero();
    assertThat(quiet.get("next_before").isNull()).isTrue();
  }

  @Test
  void bad_requests_are_problem_documents() throws Exception {
    String unknown = UUID.randomUUID().toString();
    record Bad(String method, String path, int status, String type) {}
    for (Bad bad :
        List.of(
            new Bad("GET", "/console/api/dead-letters?all=yes", 400, "invalid_request"),
            new Bad("GET", "/console/api/dead-letters?before=xyz", 400, "invalid_request"),
            new Bad(
                "GET",
                "/console/api/dead-letters?before=2026-13-01T00:00:00Z_" + unknown,
                400,
                "invalid_request"),
            new Bad(
                "GET",
                "/console/api/dead-letters?before=%2B1000000000-01-01T00:00:00Z_" + unknown,
                400,
                "invalid_request"),
            new Bad(
                "GET",
                "/console/api/dead-letters?before=2026-01-01T00:00:00Z_1-2-3-4-5",
                400,
                "invalid_request"),
            new Bad("GET", "/console/api/dead-letters/1-2-3-4-5", 400, "invalid_request"),
            new Bad("GET", "/console/api/dead-letters?limit=0", 400, "invalid_request"),
            new Bad("GET", "/console/api/dead-letters/nope", 400, "invalid_request"),
            new Bad("GET", "/console/api/dead-letters/" + unknown, 404, "not_found"),
            new Bad("POST", "/console/api/dead-letters/" + unknown + "/replay", 404, "not_found"),
            new Bad(
                "GET", "/console/api/webhooks/subscriptions?after=nope", 400, "invalid_request"),
            new Bad("GET", "/console/api/webhooks/subscriptions/" + unknown, 404, "not_found"),
            new Bad(
                "GET",
                "/console/api/webhooks/subscriptions/" + unknown + "/attempts",
                404,
                "not_found"),
            new Bad(
                "GET",
                "/console/api/webhooks/subscriptions/"
                    + ConsoleFixtures.SUBSCRIPTION
                    + "/attempts?before=1_2",
                400,
                "invalid_request"),
            new Bad(
                "POST",
                "/console/api/webhooks/subscriptions/" + ConsoleFixtures.SUBSCRIPTION,
                405,
                "method_not_allowed"))) {
      HttpResponse<String> r =
          bad.method().equals("GET")
              ? console().get(bad.path(), ApiApp.ROBIN_ADMIN)
              : console().post(bad.path(), ApiApp.ROBIN_ADMIN, "");
      assertThat(r.statusCode()).as(bad + ": " + r.body()).isEqualTo(bad.status());
      assertThat(ConsoleClient.json(r).get("type").asText())
          .as(bad.toString())
          .isEqualTo(bad.type());
      assertThat(r.body()).as(bad.toString()).doesNotContain("SQLSTATE");
    }
  }

  private List<String> openIds() throws Exception {
    List<String> ids = new ArrayList<>();
    get("/console/api/dead-letters?limit=50")
        .get("dead_letters")
        .forEach(l -> ids.add(l.get("id").asText()));
    return ids;
  }
}
