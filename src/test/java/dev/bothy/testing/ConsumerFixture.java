package dev.bothy.testing;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.pg.PgTx;
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
    this(pool, batchSize, Clock.system());
  }

  /**
   * Creates the fixture with the clock of the events' {@code occurred_at}.
   *
   * @param pool this worker's pool
   * @param batchSize {@code consumer.batchSize}
   * @param clock the time of the appends, such as a settable clock for retention tests
   */
  public ConsumerFixture(DataSource pool, int batchSize, Clock clock) {
    log = new EventLogFixture(pool, clock, 64 * 1024, (n, nanos) -> {}, 2);
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
   * The probe handler that writes its jobs at once with {@code insertTx}: the two rows are in the
   * database (inside the round's transaction) before {@code after} runs, so a failure after it must
   * roll back rows that really were written. The handler checks that the round sees its own rows,
   * so a probe that deferred its inserts would fail here instead of passing the atomicity tests.
   *
   * @param after runs after the inserts of each event
   * @return the handler
   */
  public ConsumerHandler probeTx(ConsumerHandler after) {
    return (Event e) -> {
      inserter.insertTx(new ProbeArgs(e.seq(), ALEX), new ProbeArgs(e.seq(), SAM));
      Long written =
          PgTx.dsl()
              .resultQuery(
                  "select count(*) from jobs where kind = 'sync.consumer_probe'"
                      + " and (args->>'seq')::bigint = ?",
                  e.seq())
              .fetchOne(0, Long.class);
      if (written == null || written != 2) {
        throw new AssertionError("the round does not see its own two jobs of event " + e.seq());
      }
      after.handleEvent(e);
    };
  }

  /**
   * A broken probe for the negative controls of the atomicity tests: it writes the two jobs of each
   * event through another worker's unit of work, on another thread and connection, which commits at
   * once whatever the round does afterwards. A test that cannot tell this handler from {@link
   * #probeTx} proves nothing.
   *
   * @param elsewhere the fixture whose unit of work and inserter write the jobs
   * @param after runs after the inserts of each event
   * @return the handler
   */
  public static ConsumerHandler probeElsewhere(ConsumerFixture elsewhere, ConsumerHandler after) {
    return (Event e) -> {
      java.util.concurrent.ExecutorService thread =
          java.util.concurrent.Executors.newSingleThreadExecutor();
      try {
        thread
            .submit(
                () ->
                    elsewhere.log.uow.run(
                        () ->
                            elsewhere.inserter.insertTx(
                                new ProbeArgs(e.seq(), ALEX), new ProbeArgs(e.seq(), SAM))))
            .get(30, java.util.concurrent.TimeUnit.SECONDS);
      } finally {
        thread.shutdownNow();
      }
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
