package dev.bothy.platform.jobs.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fetch starts at its queue's fetch horizon (ADR 0030): between two vacuums the index {@code
 * jobs_fetch} keeps an entry for every job fetched since the last one, all before the waiting jobs
 * in the index's order, and a fetch that walked them read a page per few hundred fetched jobs (2 ms
 * per fetch in the webhooks benchmark). The horizon, read once per {@code jobs.pollInterval}, is
 * the oldest waiting job's due time less {@code jobs.fetchLookback}; the fetch reads from there.
 */
class JobFetchHorizonTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String QUEUE = "horizon";
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private final JobStore store = new JobStore();
  private PgUnitOfWork uow;

  @BeforeEach
  void setUp() throws Exception {
    uow =
        new PgUnitOfWork(
            PG.app(),
            EventLogFixture.SETTINGS,
            new HookRegistry(),
            d -> Thread.sleep(d.toMillis()),
            new Random());
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM jobs");
      st.execute("VACUUM jobs");
      // 20,000 jobs of the last hour that were fetched and completed since the last vacuum: their
      // entries in jobs_fetch stay until the next one.
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
              + " created_at) SELECT gen_random_uuid(), 'test.horizon', '"
              + QUEUE
              + "', '{}', 'available', 3, 2, timestamptz '2026-03-01T11:00:00Z'"
              + " + g * interval '150 ms', now() FROM generate_series(1, 20000) g");
      st.execute(
          "UPDATE jobs SET state = 'completed', attempt = 1, attempted_at = now(), attempted_by ="
              + " 'client-a', finalized_at = now() WHERE queue = '"
              + QUEUE
              + "'");
      // The statistics a running system has (autovacuum analyzes the table as it grows).
      st.execute("ANALYZE jobs");
      // Five waiting now, one due in a minute.
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
              + " created_at) SELECT gen_random_uuid(), 'test.horizon', '"
              + QUEUE
              + "', '{}', 'available', 3, 2, timestamptz '2026-03-01T11:59:59Z', now()"
              + " FROM generate_series(1, 5)");
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
              + " created_at) VALUES (gen_random_uuid(), 'test.horizon', '"
              + QUEUE
              + "', '{}', 'scheduled', 3, 1, timestamptz '2026-03-01T12:01:00Z', now())");
    }
  }

  @Test
  void the_horizon_is_the_oldest_waiting_job_of_any_priority() {
    Optional<Instant> oldest = uow.runStatement(() -> store.oldestWaiting(QUEUE));
    assertThat(oldest).contains(Instant.parse("2026-03-01T11:59:59Z"));
    assertThat(uow.runStatement(() -> store.oldestWaiting("empty"))).isEmpty();
  }

  @Test
  void a_fetch_from_the_horizon_reads_a_few_pages_of_the_index_whatever_was_fetched_before()
      throws SQLException {
    Instant since =
        FetchHorizon.since(
            Optional.of(Instant.parse("2026-03-01T11:59:59Z")), NOW, Duration.ofSeconds(2));
    assertThat(since).isEqualTo(Instant.parse("2026-03-01T11:59:57Z"));
    // The same fetch from the start of the queue walks every entry of the fetched jobs.
    assertThat(fetchIndexPages(Instant.parse("2026-03-01T00:00:00Z"))).isGreaterThan(50);
    assertThat(fetchIndexPages(since)).isLessThan(10);
    List<FetchedJob> fetched =
        uow.runStatement(() -> store.fetch(QUEUE, 10, NOW, "client-b", since));
    assertThat(fetched).hasSize(5);
  }

  @Test
  void the_horizon_never_lies_after_now_less_the_lookback() {
    // Nothing waits, or only jobs due later: the fetch still reads back from now.
    assertThat(FetchHorizon.since(Optional.empty(), NOW, Duration.ofSeconds(2)))
        .isEqualTo(Instant.parse("2026-03-01T11:59:58Z"));
    assertThat(
            FetchHorizon.since(
                Optional.of(Instant.parse("2026-03-01T12:01:00Z")), NOW, Duration.ofSeconds(2)))
        .isEqualTo(Instant.parse("2026-03-01T11:59:58Z"));
  }

  /**
   * The pages of jobs_fetch the fetch's scan reads, from its executed plan (the planner's own reads
   * left out: a prepared statement is planned once), in a transaction rolled back.
   */
  private static long fetchIndexPages(Instant since) throws SQLException {
    try (Connection c = PG.app().getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement explain =
          c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + JobStore.fetchSql())) {
        // The rendered order: the attempt's time and client, then the queue, due time, horizon
        // and limit of the subquery.
        explain.setObject(1, NOW.atOffset(ZoneOffset.UTC));
        explain.setString(2, "client-b");
        explain.setString(3, QUEUE);
        explain.setObject(4, NOW.atOffset(ZoneOffset.UTC));
        explain.setObject(5, since.atOffset(ZoneOffset.UTC));
        explain.setInt(6, 10);
        try (ResultSet rs = explain.executeQuery()) {
          rs.next();
          JsonNode plan = new ObjectMapper().readTree(rs.getString(1));
          return indexPages(plan, "jobs_fetch");
        } catch (JsonProcessingException e) {
          throw new IllegalStateException(e);
        }
      } finally {
        c.rollback();
      }
    }
  }

  private static long indexPages(JsonNode node, String index) {
    long pages = 0;
    if (node.isObject() && index.equals(node.path("Index Name").asText())) {
      pages += node.path("Shared Hit Blocks").asLong() + node.path("Shared Read Blocks").asLong();
    }
    for (JsonNode child : node) {
      pages += indexPages(child, index);
    }
    return pages;
  }
}
