package dev.bothy.api.http;

import static dev.bothy.wire.ApiApp.body;
import static dev.bothy.wire.ApiApp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.SettableClock;
import dev.bothy.sync.adapters.postgres.JooqPartitionRepository;
import dev.bothy.sync.app.PartitionMaintenance;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiAppExtension;
import dev.bothy.wire.config.SyncConfig;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The resync rule of {@code GET /v1/events} and {@code GET /v1/events/stream}, after retention
 * really dropped a partition: its own application, whose event log starts just below the first
 * partition's end.
 */
class GetEventsAfterRetentionTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP =
      new ApiAppExtension(
          PG,
          "",
          db -> {
            // The changelog's first partition ends at 1,000,000: the events of this class straddle
            // it.
            try (Connection c = db.owner().getConnection();
                Statement st = c.createStatement()) {
              st.execute("UPDATE sequence_counters SET value = 999990 WHERE name = 'event_seq'");
            }
          });

  @Test
  void after_retention_dropped_a_partition_a_read_below_it_is_410_with_the_minimum()
      throws Exception {
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> r =
          APP.app()
              .post(
                  body(settings("a"), settings("b"), settings("c"), settings("d"), settings("e")),
                  ApiApp.ALEX,
                  Map.of());
      assertThat(r.statusCode()).isEqualTo(201);
    }
    // 999991..1000010; thirty days on, the first partition holds only expired events.
    SettableClock later = new SettableClock(Instant.now().plus(Duration.ofDays(30)));
    EventLogFixture fixture = new EventLogFixture(PG.app(), later, 1024, (n, nanos) -> {}, 2);
    SyncConfig sync = new SyncConfig();
    PartitionMaintenance.Result result =
        new PartitionMaintenance(
                fixture.uow,
                new JooqPartitionRepository(),
                fixture.events,
                later,
                sync.eventLogPartitionSize(),
                sync.partitionsAhead(),
                sync.eventRetention().toJavaDuration())
            .run();
    assertThat(result.dropped()).hasSize(1);

    HttpResponse<String> gone = APP.app().get("/v1/events?after=0", ApiApp.SAM);
    assertThat(gone.statusCode()).isEqualTo(410);
    JsonNode problem = new ObjectMapper().readTree(gone.body());
    assertThat(problem.get("type").asText()).isEqualTo("resync_required");
    assertThat(problem.get("min_retained_seq").asLong()).isEqualTo(1_000_001);

    HttpResponse<String> stream = APP.app().get("/v1/events/stream?after=999995", ApiApp.SAM);
    assertThat(stream.statusCode()).isEqualTo(410);

    HttpResponse<String> kept = APP.app().get("/v1/events?after=1000000", ApiApp.SAM);
    assertThat(kept.statusCode()).isEqualTo(200);
    assertThat(new ObjectMapper().readTree(kept.body()).get("events")).hasSize(10);
  }
}
