package dev.bothy.bus;

import dev.bothy.bus.adapters.postgres.JooqDeadLetterRepository;
import dev.bothy.bus.adapters.postgres.JooqDeliveryRepository;
import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.DeadLetterService;
import dev.bothy.bus.app.Dispatch;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.kernel.SettableClock;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ReadResult;
import dev.bothy.system.SystemEvents;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The parts every transport of the dispatch tests shares, wired as {@code BusDispatchModule} wires
 * them over one worker's event log: the handler registry with the test's consumer, the dispatch
 * with recording metrics, the job kind {@code bus.dispatch} and the dead letters' verbs. An {@code
 * audit} phase hook fails the commit of a unit while {@link #failAtCommit} holds an exception: the
 * stand-in for a process killed between the handler and the commit (only a unit in which a test
 * handler ran fails, never a consumer round's).
 */
final class DispatchParts {
  static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

  /**
   * Set by the test handlers in their unit: the commit that fails is a handler's, not a round's.
   */
  static final TxKey<Boolean> HANDLER_RAN = TxKey.of("test.handler_ran");

  final SettableClock clock = new SettableClock(START);
  final EventLogFixture log;
  final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());
  final HandlerRegistry handlers = new HandlerRegistry();
  final JobRegistry jobs = new JobRegistry(3, Duration.ofSeconds(30), Duration.ofMinutes(10));
  final JobInserterService inserter;
  final JooqDeliveryRepository deliveries = new JooqDeliveryRepository();
  final JooqDeadLetterRepository letters = new JooqDeadLetterRepository();
  final Dispatch dispatch;
  final DispatchJob dispatchJob;
  final DeadLetterService deadLetters;
  final AtomicReference<RuntimeException> failAtCommit = new AtomicReference<>();

  /** Outcomes counted by the metrics: "handler outcome", and "handler dead_letter". */
  final List<String> counted = new CopyOnWriteArrayList<>();

  DispatchParts(DataSource pool, BusConsumer consumer) {
    log = new EventLogFixture(pool, clock, 64 * 1024, (n, nanos) -> {}, 2);
    log.hooks.register(
        Phase.AUDIT,
        "test.fail_at_commit",
        () -> {
          RuntimeException e = failAtCommit.get();
          if (e != null && log.uow.get(HANDLER_RAN).isPresent()) {
            throw e;
          }
        });
    inserter = new JobInserterService(log.uow, log.hooks, jobs, codec, clock);
    handlers.register(consumer.module(), List.of(consumer));
    EventTypes catalogue = EventTypes.withBuiltIns();
    // The system module's types too, so a test consumer can take a second type of another module.
    SystemEvents.registrations().forEach(catalogue::register);
    handlers.freeze(catalogue);
    dispatch =
        new Dispatch(
            log.uow,
            log.appender,
            codec,
            deliveries,
            letters,
            new PgProjectionLock(),
            new DispatchMetrics() {
              @Override
              public void outcome(String handler, String outcome) {
                counted.add(handler + " " + outcome);
              }

              @Override
              public void handled(String handler, long nanos) {}

              @Override
              public void deadLetter(String handler) {
                counted.add(handler + " dead_letter");
              }
            },
            clock,
            200);
    dispatchJob = new DispatchJob(handlers, dispatch, log.log, 8, java.time.Duration.ofSeconds(1));
    jobs.register(dispatchJob.kind(Duration.ofSeconds(30)));
    jobs.freeze();
    deadLetters = new DeadLetterService(log.uow, letters, inserter, clock);
  }

  /** Appends one event and returns it as stored. */
  Event appendOne() {
    log.append(UUID.randomUUID(), 1);
    long head = log.log.head();
    ReadResult read = log.log.readAfter(head - 1, 1);
    return ((ReadResult.Page) read).events().get(0);
  }

  /** Every event of the log, in order. */
  List<Event> events() {
    ReadResult read = log.log.readAfter(0, 1000);
    return new ArrayList<>(((ReadResult.Page) read).events());
  }
}
