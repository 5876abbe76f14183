package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.ALEX;
import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append that fails in the database, with a marker in its payload: a trigger refuses the row,
 * once quoting the payload in the error's message and once as a unique violation whose detail names
 * it as the key value. Neither the answer nor any line of the application or request log carries
 * the marker; the failure is logged with its class and SQLSTATE.
 */
class AppendFailureLogsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String IN_MESSAGE = "leakmark-" + UUID.randomUUID();
  private static final String IN_DETAIL = "leakdetail-" + UUID.randomUUID();

  // Test-only trigger: the refusals a constraint or a trigger of a later schema could raise.
  private static final String REFUSE =
      "CREATE FUNCTION leak_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " IF NEW.payload::text LIKE '%leakdetail-%' THEN"
          + "   RAISE EXCEPTION USING ERRCODE = '23505',"
          + "     MESSAGE = 'duplicate key value violates unique constraint \"leak\"',"
          + "     DETAIL = 'Key (k)=(' || NEW.payload::text || ') already exists.';"
          + " ELSIF NEW.payload::text LIKE '%leakmark-%' THEN"
          + "   RAISE EXCEPTION 'refused: %', NEW.payload::text;"
          + " END IF; RETURN NEW; END $$";

  @Test
  void an_append_failing_in_the_database_logs_no_payload(@TempDir Path dir) throws Exception {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(REFUSE);
      st.execute(
          "CREATE TRIGGER leak_refuse BEFORE INSERT ON event_log"
              + " FOR EACH ROW EXECUTE FUNCTION leak_refuse()");
    }
    ApiApp app = ApiApp.start(PG, dir, ApiApp.SMALL_SYNC_LIMITS);
    HttpResponse<String> inMessage;
    HttpResponse<String> inDetail;
    try {
      inMessage = app.post(body(settings(IN_MESSAGE)), ALEX, Map.of());
      inDetail = app.post(body(settings(IN_DETAIL)), ALEX, Map.of());
    } finally {
      app.close();
    }

    assertThat(inMessage.statusCode()).isEqualTo(500);
    assertThat(inDetail.statusCode()).isGreaterThanOrEqualTo(400);
    assertThat(inMessage.body() + inDetail.body()).doesNotContain(IN_MESSAGE, IN_DETAIL);
    List<String> log =
        Files.readAllLines(dir.resolve(ApiApp.APPLICATION_LOG), StandardCharsets.UTF_8);
    assertThat(log)
        .as("the failures are logged")
        .anyMatch(l -> l.contains("request failed") && l.contains("sqlstate=P0001"))
        .anyMatch(l -> l.contains("request failed") && l.contains("sqlstate=23505"));
    for (String file : List.of(ApiApp.APPLICATION_LOG, ApiApp.REQUEST_LOG)) {
      assertThat(Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8))
          .as(file)
          .isNotEmpty()
          .noneMatch(l -> l.contains(IN_MESSAGE) || l.contains(IN_DETAIL));
    }
  }
}
