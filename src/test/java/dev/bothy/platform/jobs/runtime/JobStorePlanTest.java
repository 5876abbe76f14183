package dev.bothy.platform.jobs.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The completion finds its running jobs by their primary key, also when the statistics say no job
 * runs (the failed attempt, the snooze and the cancel by the work share its state condition, {@code
 * JobStore.HELD}): the partial index {@code jobs_running} then looks free to scan, but between two
 * vacuums it holds an entry for every job that ran, and a completion that scanned it read thousands
 * of pages (28 ms for two jobs in the webhooks benchmark, D-WF-8).
 */
class JobStorePlanTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Test
  void the_completion_finds_its_jobs_by_primary_key_when_no_job_is_counted_as_running()
      throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
              + " created_at, attempted_at, attempted_by, finalized_at)"
              + " SELECT gen_random_uuid(), 'webhooks.deliver', 'webhooks', '{}', 'completed', 8,"
              + " 2, now(), now(), now(), 'client-a', now() FROM generate_series(1, 20000)");
      // The statistics a vacuum leaves after a burst: many finished jobs, none running.
      st.execute("VACUUM ANALYZE jobs");
    }
    List<String> plan = new ArrayList<>();
    try (Connection c = PG.app().getConnection();
        PreparedStatement explain = c.prepareStatement("EXPLAIN " + JobStore.completeSql())) {
      explain.setObject(1, OffsetDateTime.now(ZoneOffset.UTC));
      explain.setArray(2, c.createArrayOf("uuid", new UUID[] {UUID.randomUUID()}));
      explain.setString(3, "client-a");
      try (ResultSet rs = explain.executeQuery()) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
    }
    assertThat(String.join("\n", plan)).contains("jobs_pkey").doesNotContain("jobs_running");
  }
}
