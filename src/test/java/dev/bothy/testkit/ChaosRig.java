package dev.bothy.testkit;

import dev.bothy.bus.BusConsumer;
import dev.bothy.bus.DispatchMetrics;
import dev.bothy.bus.adapters.postgres.JooqDeadLetterRepository;
import dev.bothy.bus.adapters.postgres.JooqDeliveryRepository;
import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.Dispatch;
import dev.bothy.bus.app.DispatchJob;
import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.instance.app.CounterService;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.SettableClock;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.app.AppendHook;
import dev.bothy.sync.app.AppendService;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.wire.EventRegistrations;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The parts of one run's process, wired as {@code wire.Assembly} wires them for a worker: the unit
 * of work with the append and job-insert hooks, the catalogue of every module's event types, the
 * consumer's handlers, dispatch with the job kind {@code bus.dispatch}. The clock is fixed at
 * {@link ChaosSuite#START}.
 */
final class ChaosRig {
  final SettableClock clock = new SettableClock(ChaosSuite.START);
  final HookRegistry hooks = new HookRegistry();
  final PgUnitOfWork uow;
  final AppendService appender;
  final JooqEventRepository events = new JooqEventRepository();
  final EventLogService log;
  final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());
  final EventTypes catalogue = EventRegistrations.catalogue();
  final HandlerRegistry handlers = new HandlerRegistry();
  final JobRegistry jobs = new JobRegistry(3, Duration.ofSeconds(30), Duration.ofMinutes(10));
  final JobInserterService inserter;
  final Dispatch dispatch;
  final DispatchJob dispatchJob;
  final List<BusConsumer> consumers;

  /** Dispatch outcomes counted: handler runs, duplicates and parked deliveries. */
  final AtomicInteger deliveries = new AtomicInteger();

  /** The ids of the script's events, in script order. */
  final List<UUID> scriptEvents = new ArrayList<>();

  ChaosRig(DataSource app, ChaosConsumer consumer) {
    uow =
        new PgUnitOfWork(
            app, EventLogFixture.SETTINGS, hooks, d -> Thread.sleep(d.toMillis()), new Random());
    appender = new AppendService(uow, catalogue, codec, clock, 64 * 1024);
    hooks.register(
        Phase.SYNC,
        AppendHook.NAME,
        new AppendHook(
            uow,
            new CounterService(uow, new JooqCounterRepository()),
            events,
            (n, nanos) -> {},
            2,
            EventLogFixture.SETTINGS.lockTimeout()));
    log = new EventLogService(uow, events);
    inserter = new JobInserterService(uow, hooks, jobs, codec, clock);
    consumers =
        consumer
            .consumers()
            .build(
                new ChaosContext() {
                  @Override
                  public UnitOfWork unitOfWork() {
                    return uow;
                  }

                  @Override
                  public Appender appender() {
                    return appender;
                  }

                  @Override
                  public Clock clock() {
                    return clock;
                  }
                });
    handlers.register(consumer.module(), consumers);
    handlers.freeze(catalogue);
    dispatch =
        new Dispatch(
            uow,
            appender,
            codec,
            new JooqDeliveryRepository(),
            new JooqDeadLetterRepository(),
            new PgProjectionLock(),
            new DispatchMetrics() {
              @Override
              public void outcome(String handler, String outcome) {
                deliveries.incrementAndGet();
              }

              @Override
              public void handled(String handler, long nanos) {}

              @Override
              public void deadLetter(String handler) {}
            },
            clock,
            200);
    dispatchJob = new DispatchJob(handlers, dispatch, log, 32, java.time.Duration.ofSeconds(1));
    jobs.register(dispatchJob.kind(Duration.ofSeconds(30)));
    jobs.freeze();
  }

  /** Runs steps {@code from} (inclusive) to {@code to} (exclusive) of the script. */
  void runScript(Script script, int from, int to) {
    for (int i = from; i < to; i++) {
      int index = i;
      List<UUID> ids =
          uow.run(
              () -> {
                List<UUID> appended = new ArrayList<>();
                script
                    .step()
                    .run(
                        index,
                        new ScriptContext() {
                          @Override
                          public void append(EventDraft... drafts) {
                            appended.addAll(appender.append(drafts));
                          }

                          @Override
                          public Instant now() {
                            return clock.now();
                          }
                        });
                return appended;
              });
      scriptEvents.addAll(ids);
    }
  }
}
