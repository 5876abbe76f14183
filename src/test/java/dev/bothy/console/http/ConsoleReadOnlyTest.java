package dev.bothy.console.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code console.readOnly: true} every action is a {@code 403 read_only}, even for a token
 * with {@code admin:write}, and changes nothing; looking still works.
 */
class ConsoleReadOnlyTest {
  static final UUID DISCARDED = UUID.fromString("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");

  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          "console:\n  readOnly: true\n",
          pg -> {
            try (Connection c = pg.owner().getConnection();
                Statement s = c.createStatement()) {
              s.execute(
                  "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts,"
                      + " priority, scheduled_at, created_at, finalized_at) VALUES ('"
                      + DISCARDED
                      + "', 'console.probe', 'console_test', '{}'::jsonb, 'discarded', 3, 3, 2,"
                      + " now(), now(), now())");
              ConsoleFixtures.deadLetters(c, 1);
            }
          });

  @Test
  void every_action_is_refused_even_with_admin_write_and_changes_nothing() throws Exception {
    ConsoleClient console = new ConsoleClient(APP.app());
    String letter =
        ConsoleClient.json(console.get("/console/api/dead-letters", ApiApp.ROBIN_ADMIN))
            .at("/dead_letters/0/id")
            .asText();
    for (HttpResponse<String> refused :
        List.of(
            console.post("/console/api/dead-letters/" + letter + "/replay", ApiApp.ROBIN_ADMIN, ""),
            console.post("/console/api/jobs/" + DISCARDED + "/retry", ApiApp.ROBIN_ADMIN, ""),
            console.post("/console/api/jobs/" + DISCARDED + "/cancel", ApiApp.ROBIN_ADMIN, ""),
            console.post(
                "/console/api/jobs/retry",
                ApiApp.ROBIN_ADMIN,
                "{\"ids\": [\"" + DISCARDED + "\"]}"))) {
      assertThat(refused.statusCode()).isEqualTo(403);
      JsonNode problem = ConsoleClient.json(refused);
      assertThat(problem.get("type").asText()).isEqualTo("read_only");
      assertThat(problem.get("detail").asText()).contains("console.readOnly");
    }
    JsonNode job =
        ConsoleClient.json(console.get("/console/api/jobs/" + DISCARDED, ApiApp.ROBIN_ADMIN));
    assertThat(job.get("state").asText()).isEqualTo("discarded");
    JsonNode dead =
        ConsoleClient.json(console.get("/console/api/dead-letters/" + letter, ApiApp.ROBIN_ADMIN));
    assertThat(dead.get("open").asBoolean()).isTrue();
    assertThat(dead.get("replays").asInt()).isZero();
    assertThat(APP.app().loggedLines()).noneMatch(line -> line.startsWith("console action:"));
  }

  @Test
  void the_overview_tells_the_page_that_no_action_will_pass() throws Exception {
    JsonNode overview =
        ConsoleClient.json(
            new ConsoleClient(APP.app()).get("/console/api/overview", ApiApp.ROBIN_ADMIN));
    assertThat(overview.at("/token/read_only").asBoolean()).isTrue();
    assertThat(overview.at("/token/can_act").asBoolean()).isFalse();
  }
}
