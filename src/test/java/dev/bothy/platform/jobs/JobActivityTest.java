package dev.bothy.platform.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.testing.JobsFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link JobAdmin#activity}: the counts behind the console's job rates, on a real PostgreSQL. */
class JobActivityTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  private static final String INSERT =
      "INSERT INTO jobs (id, kind, queue, args, state, max_attempts, priority, scheduled_at,"
          + " created_at, finalized_at) VALUES (?, 'console.activity', 'console_test',"
          + " '{}'::jsonb, ?, 3, 2, now(), now(), ?)";

  private static void job(Connection c, int createdSecond, String state, Integer finalizedSecond)
      throws Exception {
    long millis = T0.plusSeconds(createdSecond).toEpochMilli();
    UUID id = new Ids(() -> millis, new Random()).next();
    try (PreparedStatement s = c.prepareStatement(INSERT)) {
      s.setObject(1, id);
      s.setString(2, state);
      s.setTimestamp(
          3, finalizedSecond == null ? null : Timestamp.from(T0.plusSeconds(finalizedSecond)));
      s.executeUpdate();
    }
  }

  @Test
  void a_span_counts_the_jobs_created_completed_and_discarded_in_it() throws Exception {
    try (Connection c = PG.owner().getConnection()) {
      job(c, -5, "completed", 2);
      job(c, 1, "available", null);
      job(c, 1, "completed", 2);
      job(c, 1, "discarded", 3);
      job(c, 5, "cancelled", 4);
      job(c, 9, "completed", 15);
      job(c, 10, "available", null);
      job(c, 20, "discarded", 25);
    }
    JobAdmin admin = new JobsFixture(PG, Clock.system()).admin;

    assertThat(admin.activity(T0, T0.plusSeconds(10))).isEqualTo(new JobActivity(5, 2, 1));
    assertThat(admin.activity(T0.plusSeconds(10), T0.plusSeconds(30)))
        .as("the start is included, the end is not")
        .isEqualTo(new JobActivity(2, 1, 1));
    assertThat(admin.activity(T0, T0)).isEqualTo(new JobActivity(0, 0, 0));
    assertThatThrownBy(() -> admin.activity(T0.plusSeconds(1), T0))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("ends before it starts");
  }
}
