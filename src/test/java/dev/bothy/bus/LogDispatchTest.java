package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.app.DeliveryRetentionJob;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.bus.app.LogDispatchConsumer;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.Event;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The dispatch contract on the log transport: the worker consumer {@code bus} turns each event into
 * {@code bus.dispatch} jobs, and each job's attempt is one delivery. Jobs are not worked by a
 * runtime here: a delivery runs the attempt of every job of the event with the delivery count as
 * the attempt, as the runtime would after that many failures (the runtime's own retry scheduling
 * with a kind's delays is {@code JobRuntimeTest}'s). The message's verdict the contract asks for is
 * the combination of the jobs' verdicts by the same rules.
 */
class LogDispatchTest extends DispatchContract {

  @Override
  Transport transport(DispatchParts parts) {
    ConsumerService consumers =
        new ConsumerService(
            parts.log.uow, new JooqConsumerCursorRepository(), parts.log.events, 100);
    consumers.register(ConsumerName.BUS, new LogDispatchConsumer(parts.handlers, parts.inserter));
    consumers.ensure();
    return new Transport() {
      @Override
      public Verdict deliver(Event event, int n) {
        consumers.round(ConsumerName.BUS);
        List<Verdict> verdicts = new ArrayList<>();
        for (QueuedJob job : jobsOf(event.id())) {
          verdicts.add(attempt(parts, job, n));
        }
        return VerdictRules.combine(verdicts);
      }

      @Override
      public Duration redeliveryDelay(int n) {
        return parts
            .jobs
            .byName(DispatchJob.KIND)
            .orElseThrow()
            .kind()
            .retryDelays()
            .orElseThrow()
            .delayAfter(n, 0.5);
      }

      @Override
      public Verdict replay(UUID deadLetterId) {
        DeadLetter letter = parts.deadLetters.replay(deadLetterId);
        List<QueuedJob> jobs = jobsOf(letter.eventId());
        return attempt(parts, jobs.get(jobs.size() - 1), 1);
      }
    };
  }

  /** A queued dispatch job as the test sees it. */
  record QueuedJob(
      UUID id, DispatchJob.Args args, String uniqueKey, String queue, int maxAttempts) {}

  static Verdict attempt(DispatchParts parts, QueuedJob job, int attempt) {
    JobContext context =
        new JobContext(job.id(), DispatchJob.KIND, attempt, job.maxAttempts(), DispatchParts.START);
    try {
      return parts.dispatchJob.attempt(context, job.args());
    } catch (BothyException e) {
      assertThat(e.kind().retryable()).as("only a nak fails the attempt").isTrue();
      return Verdict.NAK;
    }
  }

  static List<QueuedJob> jobsOf(UUID eventId) {
    List<QueuedJob> jobs = new ArrayList<>();
    try (Connection c = PG.owner().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT id, (args->>'handler')::uuid, (args->>'eventId')::uuid,"
                    + " (args->>'seq')::bigint, coalesce(unique_key, ''), queue, max_attempts"
                    + " FROM jobs WHERE kind = 'bus.dispatch' AND (args->>'eventId')::uuid = ?"
                    + " ORDER BY created_at, id")) {
      s.setObject(1, eventId);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          jobs.add(
              new QueuedJob(
                  r.getObject(1, UUID.class),
                  new DispatchJob.Args(
                      r.getObject(2, UUID.class), r.getObject(3, UUID.class), r.getLong(4)),
                  r.getString(5),
                  r.getString(6),
                  r.getInt(7)));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return jobs;
  }

  @Test
  void a_round_queues_one_dispatch_job_per_interested_handler_and_event_once() throws SQLException {
    start(handler("probe.one", never()), handler("probe.two", never()));
    Event first = parts.appendOne();
    Event second = parts.appendOne();

    transport.deliver(first, 1);
    transport.deliver(first, 2);

    for (Event e : List.of(first, second)) {
      assertThat(jobsOf(e.id()))
          .extracting(QueuedJob::uniqueKey)
          .containsExactly("probe.one:" + e.id(), "probe.two:" + e.id());
      assertThat(jobsOf(e.id()))
          .allSatisfy(
              j -> {
                assertThat(j.queue()).isEqualTo("bus");
                assertThat(j.maxAttempts()).isEqualTo(VerdictRules.MAX_DELIVER);
                assertThat(j.args().seq()).isEqualTo(e.seq());
              });
    }
    assertThat(jobsOf(first.id()))
        .extracting(j -> j.args().handler())
        .containsExactly(HandlerRegistry.idOf("probe.one"), HandlerRegistry.idOf("probe.two"));
    // The follow-on events the handlers appended are settings.updated too: each got its jobs in
    // a later round, never more than one per handler.
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT unique_key FROM jobs GROUP BY unique_key"
                    + " HAVING count(*) > 1) d"))
        .isZero();
  }

  @Test
  void an_acked_attempt_runs_one_unit_that_reads_the_event_and_runs_the_handler_with_its_row()
      throws SQLException {
    parts =
        new DispatchParts(
            PG.app(),
            new BusConsumer(
                "probe_main",
                List.of(handler("probe.ok", call -> call == 1 ? unavailable() : null))));
    AtomicInteger units = new AtomicInteger();
    parts.log.hooks.register(Phase.AUDIT, "test.count_units", units::incrementAndGet);
    transport = transport(parts);
    Event e = parts.appendOne();
    assertThat(transport.deliver(e, 1)).isEqualTo(Verdict.NAK);
    QueuedJob job = jobsOf(e.id()).get(0);
    units.set(0);

    // The event's read and the dead-letter check run in the handler's unit, not in units of
    // their own: every unit costs a pooled connection, the timeouts and a commit, per event
    // (bench/run.sh bus-dispatch, D-BD-4, D-BD-6).
    assertThat(attempt(parts, job, 2)).isEqualTo(Verdict.ACK);
    assertThat(units.get()).isEqualTo(1);
    assertThat(calls("probe.ok")).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM event_deliveries WHERE handler = 'probe.ok'"))
        .isEqualTo(1);
  }

  @Test
  void a_job_whose_handler_or_event_is_gone_is_cancelled_without_a_dead_letter()
      throws SQLException {
    start(handler("probe.ok", never()));
    Event e = parts.appendOne();
    JobContext context = new JobContext(Ids.newId(), DispatchJob.KIND, 1, 10, DispatchParts.START);

    assertThatThrownBy(
            () ->
                parts.dispatchJob.attempt(
                    context,
                    new DispatchJob.Args(HandlerRegistry.idOf("probe.gone"), e.id(), e.seq())))
        .isInstanceOf(JobEnd.class)
        .hasMessageContaining("no bus handler");
    assertThatThrownBy(
            () ->
                parts.dispatchJob.attempt(
                    context,
                    new DispatchJob.Args(HandlerRegistry.idOf("probe.ok"), Ids.newId(), e.seq())))
        .isInstanceOf(JobEnd.class)
        .hasMessageContaining("no longer in the log");
    assertThat(count("SELECT count(*) FROM bus_dead_letters")).isZero();
    assertThat(count("SELECT count(*) FROM event_deliveries")).isZero();
    assertThat(calls("probe.ok")).isZero();
  }

  @Test
  void the_retention_job_deletes_only_rows_and_dead_letters_past_the_retention() throws Exception {
    start(handler("probe.ok", never()), handler("probe.bad", always(new IllegalStateException())));
    Event old = parts.appendOne();
    transport.deliver(old, 1);
    parts.clock.advance(Duration.ofDays(10));
    Event recent = parts.appendOne();
    transport.deliver(recent, 1);
    parts.clock.advance(Duration.ofDays(1));
    JobKind<DeliveryRetentionJob.Args> kind =
        DeliveryRetentionJob.kind(
            parts.log.uow, parts.deliveries, parts.letters, parts.clock, Duration.ofDays(5), 1);

    kind.work()
        .work(
            new JobContext(Ids.newId(), DeliveryRetentionJob.KIND, 1, 3, DispatchParts.START),
            new DeliveryRetentionJob.Args());

    assertThat(PgExtension.rows(PG.owner(), "SELECT event_id::text FROM event_deliveries"))
        .containsExactly(recent.id().toString());
    assertThat(PgExtension.rows(PG.owner(), "SELECT event_id::text FROM bus_dead_letters"))
        .containsExactly(recent.id().toString());
  }

  @Test
  void the_runtime_role_may_read_insert_and_delete_rows_and_update_only_dead_letters()
      throws SQLException {
    assertThat(grants("event_deliveries")).containsExactly("DELETE", "INSERT", "SELECT");
    assertThat(grants("bus_dead_letters")).containsExactly("DELETE", "INSERT", "SELECT", "UPDATE");
  }

  private static List<String> grants(String table) throws SQLException {
    return PgExtension.rows(
        PG.owner(),
        "SELECT privilege_type FROM information_schema.role_table_grants WHERE table_name = '"
            + table
            + "' AND grantee = 'bothy_app' ORDER BY 1");
  }
}
