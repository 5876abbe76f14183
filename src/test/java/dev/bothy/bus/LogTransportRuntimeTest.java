package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.app.LogDispatchConsumer;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.platform.jobs.JobMetrics;
import dev.bothy.platform.jobs.JobTracer;
import dev.bothy.platform.jobs.runtime.PgJobRuntime;
import dev.bothy.platform.pg.PoolSettings;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.testing.JobsFixture;
import dev.bothy.testing.PgExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The log transport end to end with the real job runtime: a round queues the dispatch job, a worker
 * of the queue {@code bus} runs it, a nak is retried by the runtime after the first nak delay, and
 * the second attempt commits the handler's delivery row.
 */
class LogTransportRuntimeTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Test
  void the_job_runtime_runs_the_handler_and_retries_a_nak_after_its_delay() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    BusHandler<SettingsUpdated> flaky =
        BusHandler.of(
            "probe.retry",
            EventTypes.SETTINGS_UPDATED,
            (tx, e, at) -> {
              if (calls.incrementAndGet() == 1) {
                throw BothyException.unavailable("the upstream service is away", null);
              }
            });
    DispatchParts parts =
        new DispatchParts(PG.app(), new BusConsumer("probe_main", List.of(flaky)));
    ConsumerService consumers =
        new ConsumerService(
            parts.log.uow, new JooqConsumerCursorRepository(), parts.log.events, 100);
    consumers.register(ConsumerName.BUS, new LogDispatchConsumer(parts.handlers, parts.inserter));
    consumers.ensure();
    parts.appendOne();
    consumers.round(ConsumerName.BUS);
    List<Throwable> fatal = new CopyOnWriteArrayList<>();
    PgJobRuntime runtime =
        new PgJobRuntime(
            parts.log.uow,
            parts.jobs,
            parts.codec,
            parts.inserter,
            Clock.system(),
            JobsFixture.settings(Map.of("bus", 2)),
            JobMetrics.NONE,
            JobTracer.NONE,
            new PoolSettings(
                PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), "bothy-jobs-listen"),
            fatal::add);
    runtime.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline
          && !PgExtension.rows(PG.owner(), "SELECT state FROM jobs WHERE kind = 'bus.dispatch'")
              .equals(List.of("completed"))) {
        Thread.sleep(50);
      }
    } finally {
      runtime.stop(Duration.ofSeconds(5));
    }

    assertThat(fatal).isEmpty();
    assertThat(calls.get()).isEqualTo(2);
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT state || ' ' || attempt || ' ' || jsonb_array_length(errors)"
                    + " FROM jobs WHERE kind = 'bus.dispatch'"))
        .containsExactly("completed 2 1");
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT scheduled_at - (errors->0->>'at')::timestamptz >= interval '1 second'"
                    + " AND scheduled_at - (errors->0->>'at')::timestamptz < interval '2 seconds'"
                    + " FROM jobs WHERE kind = 'bus.dispatch'"))
        .as("the retry waited the first nak delay")
        .containsExactly("t");
    assertThat(PgExtension.rows(PG.owner(), "SELECT handler FROM event_deliveries"))
        .containsExactly("probe.retry");
  }
}
