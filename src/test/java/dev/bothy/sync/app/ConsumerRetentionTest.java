package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bothy.kernel.SettableClock;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.adapters.postgres.JooqPartitionRepository;
import dev.bothy.testing.CapturedLog;
import dev.bothy.testing.ConsumerFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A consumer that falls behind the retention of the log: the real partition maintenance, on a
 * settable clock, detaches and drops the partitions the consumer has not read yet. The consumer
 * skips what is gone, logs the loss once, and goes on.
 */
class ConsumerRetentionTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final long PARTITION_SIZE = 10;
  private static final Duration RETENTION = Duration.ofDays(7);

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));

  @BeforeAll
  static void startNearTheEndOfTheFirstPartition() throws SQLException {
    // The changelog's first partition ends at 1,000,000; small partitions follow it here.
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("UPDATE sequence_counters SET value = 999995 WHERE name = 'event_seq'");
    }
  }

  private static long scalar(String sql) throws SQLException {
    return PgExtension.scalar(PG.owner(), sql);
  }

  @Test
  void a_consumer_behind_the_retention_skips_the_dropped_partitions_logs_once_and_goes_on()
      throws Exception {
    ConsumerFixture worker = new ConsumerFixture(PG.app(), 10, clock);
    PartitionMaintenance maintenance =
        new PartitionMaintenance(
            worker.log.uow,
            new JooqPartitionRepository(),
            worker.log.events,
            clock,
            PARTITION_SIZE,
            2,
            RETENTION);
    worker.consumers.register(ConsumerName.WEBHOOKS, worker.probeTx(e -> {}));
    maintenance.run();
    worker.log.append(ConsumerFixture.ALEX, 1);
    worker.consumers.ensure();
    assertThat(scalar("SELECT last_seq FROM event_consumer_cursors")).isEqualTo(999_996);

    // Events 999997..1000015 while the consumer stands; the maintenance keeps partitions ahead.
    worker.log.append(ConsumerFixture.ALEX, 4);
    maintenance.run();
    worker.log.append(ConsumerFixture.SAM, 15);
    maintenance.run();

    // Eight days later: three new events, and the maintenance drops every partition whose
    // events are all older than the retention, although the consumer has not read them.
    clock.advance(Duration.ofDays(8));
    worker.log.append(ConsumerFixture.ALEX, 3);
    PartitionMaintenance.Result dropped = maintenance.run();
    assertThat(dropped.dropped()).hasSize(2);
    assertThat(worker.log.log.minRetained()).isEqualTo(1_000_011);

    CapturedLog logs = CapturedLog.of(ConsumerService.class);
    try {
      assertThat(worker.consumers.round(ConsumerName.WEBHOOKS).processed())
          .as("the kept events 1000011..1000018")
          .isEqualTo(8);
      worker.log.append(ConsumerFixture.SAM, 2);
      maintenance.run();
      assertThat(worker.consumers.round(ConsumerName.WEBHOOKS).processed()).isEqualTo(2);
      assertThat(worker.consumers.round(ConsumerName.WEBHOOKS)).isEqualTo(RoundResult.IDLE);
    } finally {
      logs.close();
    }

    assertThat(scalar("SELECT last_seq FROM event_consumer_cursors")).isEqualTo(1_000_020);
    Map<Long, Long> perSeq = ConsumerFixture.jobsPerSeq(PG.owner());
    assertThat(perSeq.keySet())
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.LongStream.rangeClosed(1_000_011, 1_000_020).boxed().toList());
    assertThat(perSeq.values()).containsOnly(2L);
    List<ILoggingEvent> losses =
        logs.events().stream()
            .filter(e -> e.getFormattedMessage().startsWith("event consumer lost events"))
            .toList();
    assertThat(losses)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.ERROR);
              assertThat(e.getFormattedMessage())
                  .contains("bothy.consumer.name=webhooks")
                  .contains("bothy.event.seq=1000011")
                  .contains("=999997")
                  .contains("=1000010");
            });
  }
}
