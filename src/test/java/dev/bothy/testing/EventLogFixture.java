package dev.bothy.testing;

import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.instance.app.CounterService;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.TxSettings;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.ResourceRef;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.sync.adapters.postgres.JooqEventRepository;
import dev.bothy.sync.app.AppendHook;
import dev.bothy.sync.app.AppendMetrics;
import dev.bothy.sync.app.AppendService;
import dev.bothy.sync.app.EventLogService;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The event log as the assembly wires it (unit of work, counters, appender with its sync hook,
 * reads), over any data source: for the tests and benchmarks of the sync module. The hook registry
 * stays open until the first unit, so a test may add its own hooks first.
 */
public final class EventLogFixture {
  /** Unit of work settings of the tests: generous timeouts, quick retries. */
  public static final TxSettings SETTINGS =
      new TxSettings(
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          5,
          Duration.ofMillis(5),
          Duration.ofMillis(50));

  /** The hook registry of the fixture's unit of work. */
  public final HookRegistry hooks = new HookRegistry();

  /** The unit of work. */
  public final PgUnitOfWork uow;

  /** The appender. */
  public final AppendService appender;

  /** The reads. */
  public final EventLogService log;

  /** The store of the log, for components the test builds itself. */
  public final JooqEventRepository events = new JooqEventRepository();

  /**
   * Wires the event log.
   *
   * @param dataSource the runtime role's data source
   * @param clock the time of {@code occurred_at}
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   * @param metrics where committed appends are reported
   * @param maxConcurrentAppends {@code sync.maxConcurrentAppends}
   */
  public EventLogFixture(
      DataSource dataSource,
      Clock clock,
      int maxPayloadBytes,
      AppendMetrics metrics,
      int maxConcurrentAppends) {
    uow =
        new PgUnitOfWork(
            dataSource, SETTINGS, hooks, d -> Thread.sleep(d.toMillis()), new Random());
    appender =
        new AppendService(
            uow,
            EventTypes.withBuiltIns(),
            new JacksonPayloadCodec(Jackson.newObjectMapper()),
            clock,
            maxPayloadBytes);
    hooks.register(
        Phase.SYNC,
        AppendHook.NAME,
        new AppendHook(
            uow,
            new CounterService(uow, new JooqCounterRepository()),
            events,
            metrics,
            maxConcurrentAppends,
            SETTINGS.lockTimeout()));
    log = new EventLogService(uow, events);
  }

  /**
   * Wires the event log with the system clock, a 64 KiB payload limit and no metrics.
   *
   * @param dataSource the runtime role's data source
   */
  public EventLogFixture(DataSource dataSource) {
    this(dataSource, Clock.system(), 64 * 1024, (n, nanos) -> {}, 2);
  }

  /**
   * Returns {@code settings.updated} drafts about one user.
   *
   * @param user the user
   * @param n how many
   * @return the drafts
   */
  public static EventDraft[] drafts(UUID user, int n) {
    EventDraft[] drafts = new EventDraft[n];
    for (int i = 0; i < n; i++) {
      drafts[i] =
          new EventDraft(
              "settings.updated",
              new ResourceRef("user", user),
              Optional.empty(),
              new SettingsUpdated(List.of("k" + i)));
    }
    return drafts;
  }

  /**
   * Appends {@code n} events about one user in one committed unit.
   *
   * @param user the user
   * @param n how many
   */
  public void append(UUID user, int n) {
    EventDraft[] drafts = drafts(user, n);
    uow.run(() -> appender.append(drafts));
  }
}
