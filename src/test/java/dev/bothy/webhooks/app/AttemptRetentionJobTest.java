package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.adapters.postgres.JooqAttemptRepository;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code webhooks.attempt_retention}: attempts older than {@code webhooks.attemptRetention} go, in
 * batches, and the younger ones stay.
 */
class AttemptRetentionJobTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Test
  void attempts_older_than_the_retention_are_deleted_in_batches_and_younger_ones_stay()
      throws Exception {
    SettableClock clock = new SettableClock(Instant.parse("2026-12-02T10:00:00Z"));
    EventLogFixture log = new EventLogFixture(PG.app());
    JooqAttemptRepository attempts = new JooqAttemptRepository();
    UUID subscription = Ids.newId();
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO webhook_subscriptions (id, url, event_types, secret, ordered, rate_limit,"
              + " state, created_at, updated_at) VALUES ('"
              + subscription
              + "', 'https://example.com/hooks', ARRAY['settings.updated'], 'whsec_abc', false,"
              + " 5, 'active', now(), now())");
    }
    Duration retention = Duration.ofDays(14);
    log.uow.run(
        () -> {
          for (int i = 0; i < 5; i++) {
            attempts.insert(
                attempt(subscription, clock.now().minus(retention).minusSeconds(1 + i)));
          }
          attempts.insert(attempt(subscription, clock.now().minus(retention).plusSeconds(60)));
          return null;
        });
    JobKind<AttemptRetentionJob.Args> kind =
        AttemptRetentionJob.kind(log.uow, attempts, clock, retention, 2);
    assertThat(kind.name()).isEqualTo("webhooks.attempt_retention");
    assertThat(kind.queue()).isEqualTo("maintenance");
    kind.work()
        .work(
            new JobContext(Ids.newId(), kind.name(), 1, 1, clock.now()),
            new AttemptRetentionJob.Args());
    assertThat(PgExtension.rows(PG.owner(), "SELECT count(*)::text FROM webhook_attempts"))
        .as("only the attempt younger than the retention is left")
        .containsExactly("1");
    assertThat(AttemptRetentionJob.periodic(Duration.ofHours(1)).interval())
        .isEqualTo(Duration.ofHours(1));
  }

  private static Attempt attempt(UUID subscription, Instant at) {
    return new Attempt(
        Ids.newId(),
        subscription,
        1,
        Ids.newId(),
        1,
        at,
        Duration.ofMillis(5),
        DeliveryOutcome.DELIVERED,
        OptionalInt.of(200),
        Optional.of("ok"),
        Optional.empty());
  }
}
