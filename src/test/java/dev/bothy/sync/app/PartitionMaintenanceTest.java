package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.sync.ReadResult;
import dev.bothy.sync.adapters.postgres.JooqPartitionRepository;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PartitionMaintenanceTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final long SIZE = 10;
  private static final Duration RETENTION = Duration.ofDays(7);
  private static final UUID ROBIN = Ids.newId();

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private EventLogFixture fixture;
  private PgUnitOfWork uow;
  private EventLogService log;
  private PartitionMaintenance maintenance;

  @BeforeAll
  static void startNearTheEndOfTheFirstPartition() throws SQLException {
    // The changelog's first partition ends at 1,000,000; small partitions follow it here.
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("UPDATE sequence_counters SET value = 999995 WHERE name = 'event_seq'");
    }
  }

  @BeforeEach
  void setUp() {
    fixture = new EventLogFixture(PG.app(), clock, 1024, (n, nanos) -> {}, 2);
    uow = fixture.uow;
    log = fixture.log;
    maintenance =
        new PartitionMaintenance(
            uow, new JooqPartitionRepository(), fixture.events, clock, SIZE, 2, RETENTION);
  }

  private void append(int n) {
    fixture.append(ROBIN, n);
  }

  private List<Partition> partitions() {
    return uow.run(() -> new JooqPartitionRepository().partitions());
  }

  @Test
  void it_keeps_partitions_ahead_and_drops_only_whole_partitions_older_than_the_retention() {
    PartitionMaintenance.Result first = maintenance.run();
    assertThat(first.ran()).isTrue();
    assertThat(partitions())
        .as("the empty log's head is 0: the first partition and one more are ahead of it")
        .extracting(Partition::from)
        .containsExactly(1L, 1_000_001L);

    // Old events: 999996..1000015, across the first partition and the next two.
    append(5);
    maintenance.run();
    append(15);
    maintenance.run();
    assertThat(log.head()).isEqualTo(1_000_015);
    assertThat(partitions().stream().filter(p -> p.from() > log.head()).count())
        .as("partitions ahead of the head")
        .isGreaterThanOrEqualTo(2);

    // Eight days later, three new events; the head moves into 1000011..1000020.
    clock.advance(Duration.ofDays(8));
    append(3);
    PartitionMaintenance.Result later = maintenance.run();

    assertThat(later.dropped())
        .as("the first two partitions hold only old events; the head's partition stays")
        .hasSize(2);
    assertThat(partitions()).extracting(Partition::from).startsWith(1_000_011L);
    assertThat(log.minRetained()).isEqualTo(1_000_011);
    assertThat(log.readAfter(0, 10)).isEqualTo(new ReadResult.ResyncRequired(1_000_011));
    ReadResult kept = log.readAfter(1_000_010, 100);
    assertThat(((ReadResult.Page) kept).events()).hasSize(8);

    // Much later with no new events: the head's partition is old, but it holds the head.
    clock.advance(Duration.ofDays(30));
    PartitionMaintenance.Result idle = maintenance.run();
    assertThat(idle.dropped()).isEmpty();
    assertThat(log.head()).isEqualTo(1_000_018);
  }

  @Test
  void two_runs_at_once_are_safe_and_one_of_them_does_the_work() throws Exception {
    CyclicBarrier together = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<PartitionMaintenance.Result>> runs =
          List.of(
              pool.submit(
                  () -> {
                    together.await(10, TimeUnit.SECONDS);
                    return maintenance.run();
                  }),
              pool.submit(
                  () -> {
                    together.await(10, TimeUnit.SECONDS);
                    return maintenance.run();
                  }));
      for (Future<PartitionMaintenance.Result> run : runs) {
        assertThat(run.get(60, TimeUnit.SECONDS)).isNotNull();
      }
    } finally {
      pool.shutdownNow();
    }
    List<Partition> after = partitions();
    for (int i = 1; i < after.size(); i++) {
      assertThat(after.get(i).from()).as("no overlap, no hole").isEqualTo(after.get(i - 1).to());
    }
  }

  @Test
  void the_runtime_role_cannot_create_partitions_itself() {
    try (Connection c = PG.app().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE event_log_rogue PARTITION OF event_log FOR VALUES FROM (5000000) TO"
              + " (5000010)");
      throw new AssertionError("bothy_app created a partition");
    } catch (SQLException e) {
      assertThat(e.getMessage()).contains("permission denied");
    }
  }
}
