package dev.bothy.testing;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.Event;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One worker process of the consumer tests: an event log (with its own unit of work and pool), the
 * job inserter with the test-only kind {@code sync.consumer_probe}, and a {@link ConsumerService}.
 * The probe handler queues two jobs per event, for Alex and Sam, so a half-done event would show;
 * the unit writes them with one statement before it commits ({@code insertLater}).
 */
public final class ConsumerFixture {
  /** The probe job's args: the event's number and one recipient. */
  public record ProbeArgs(long seq, UUID recipient) {}

  /** Alex, a recipient of every probe event. */
  public static final UUID ALEX = Ids.newId();

  /** Sam, the other recipient. */
  public static final UUID SAM = Ids.newId();

  public final EventLogFixture log;
  public final JobInserterService inserter;
  public final ConsumerService consumers;

  /**
   * Creates the fixture.
   *
   * @param pool this worker's pool
   * @param batchSize {@code consumer.batchSize}
   */
  public ConsumerFixture(DataSource pool, int batchSize) {
    log = new EventLogFixture(pool);
    JobRegistry registry = new JobRegistry(3, Duration.ofSeconds(30), Duration.ofMinutes(10));
    registry.register(
        JobKind.builder("sync.consumer_probe", ProbeArgs.class, (c, a) -> {}).build());
    registry.freeze();
    inserter =
        new JobInserterService(
            log.uow,
            log.hooks,
            registry,
            new JacksonPayloadCodec(Jackson.newObjectMapper()),
            Clock.system());
    consumers =
        new ConsumerService(log.uow, new JooqConsumerCursorRepository(), log.events, batchSize);
  }

  /**
   * The probe handler: two jobs per event, then {@code after} (a hook for blocking or failing).
   *
   * @param after runs after the inserts of each event
   * @return the handler
   */
  public ConsumerHandler probe(ConsumerHandler after) {
    return (Event e) -> {
      inserter.insertLater(
          java.util.List.of(
              dev.bothy.platform.jobs.JobInsert.of(new ProbeArgs(e.seq(), ALEX)),
              dev.bothy.platform.jobs.JobInsert.of(new ProbeArgs(e.seq(), SAM))));
      after.handleEvent(e);
    };
  }

  /**
   * Counts the probe jobs per event number, whatever their state.
   *
   * @param db a pool that may read the jobs table
   * @return event number to its probe jobs
   * @throws java.sql.SQLException when the query fails
   */
  public static java.util.Map<Long, Long> jobsPerSeq(DataSource db) throws java.sql.SQLException {
    java.util.Map<Long, Long> perSeq = new java.util.HashMap<>();
    try (java.sql.Connection c = db.getConnection();
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery(
                "SELECT (args->>'seq')::bigint, count(*) FROM jobs"
                    + " WHERE kind = 'sync.consumer_probe' GROUP BY 1")) {
      while (rs.next()) {
        perSeq.put(rs.getLong(1), rs.getLong(2));
      }
    }
    return perSeq;
  }
}
