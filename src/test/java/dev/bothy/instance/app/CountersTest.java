package dev.bothy.instance.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.instance.CounterName;
import dev.bothy.instance.adapters.postgres.JooqCounterRepository;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.TxSettings;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CountersTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final TxSettings SETTINGS =
      new TxSettings(
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          5,
          Duration.ofMillis(5),
          Duration.ofMillis(50));
  private static final TxKey<Long> TAKE = TxKey.of("test.take");

  private final AtomicInteger repositoryCalls = new AtomicInteger();
  private HookRegistry hooks;
  private PgUnitOfWork uow;
  private CounterService counters;

  @BeforeAll
  static void createRangesTable() throws SQLException {
    ownerExecute("CREATE TABLE test_ranges (first_seq bigint NOT NULL, last_seq bigint NOT NULL)");
    ownerExecute("GRANT SELECT, INSERT ON test_ranges TO bothy_app");
  }

  @BeforeEach
  void setUp() {
    hooks = new HookRegistry();
    uow =
        new PgUnitOfWork(PG.app(), SETTINGS, hooks, d -> Thread.sleep(d.toMillis()), new Random());
    JooqCounterRepository real = new JooqCounterRepository();
    counters =
        new CounterService(
            uow,
            new CounterRepository() {
              @Override
              public long advance(String name, long n) {
                repositoryCalls.incrementAndGet();
                return real.advance(name, n);
              }

              @Override
              public long current(String name) {
                repositoryCalls.incrementAndGet();
                return real.current(name);
              }
            });
  }

  @Test
  void concurrent_advances_are_gapless_in_commit_order_with_rollbacks() throws Exception {
    ownerExecute("TRUNCATE test_ranges");
    long start = committed("event_seq");
    hooks.register(
        Phase.SYNC,
        "test.take-event-seq",
        () -> {
          long n = uow.get(TAKE).orElseThrow();
          long last = counters.advance(CounterName.EVENT_SEQ, n);
          PgTx.dsl().execute("INSERT INTO test_ranges VALUES (?, ?)", last - n + 1, last);
          sleepRandomly();
          if (ThreadLocalRandom.current().nextInt(5) == 0) {
            throw new IllegalStateException("rolled back on purpose");
          }
        });
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    List<String> readerProblems = new ArrayList<>();
    int writers = 8;
    int unitsPerWriter = 25;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try {
      Future<?> reader =
          pool.submit(
              () -> {
                while (writing.get()) {
                  String problem = contiguityProblem(start);
                  if (problem != null) {
                    readerProblems.add(problem);
                  }
                  reads.incrementAndGet();
                }
                return null;
              });
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < unitsPerWriter; i++) {
                    try {
                      uow.run(
                          () -> {
                            uow.put(TAKE, 1L + ThreadLocalRandom.current().nextInt(5));
                            return null;
                          });
                    } catch (IllegalStateException rolledBack) {
                      // A rollback on purpose; the counter must not keep its numbers.
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      writing.set(false);
      reader.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(readerProblems).isEmpty();
    assertThat(reads.get()).as("the reader looked while writers wrote").isGreaterThan(1);
    assertThat(contiguityProblem(start)).isNull();
    long lastVisible = single("SELECT coalesce(max(last_seq), " + start + ") FROM test_ranges");
    assertThat(lastVisible).isEqualTo(committed("event_seq"));
  }

  @Test
  void a_rollback_leaves_no_gap() throws SQLException {
    hooks.register(
        Phase.SYNC,
        "test.take-one",
        () -> {
          counters.advance(CounterName.EVENT_SEQ, 3);
          if (uow.get(TAKE).orElse(0L) == 1L) {
            throw new IllegalStateException("roll back");
          }
        });
    long before = committed("event_seq");

    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      uow.put(TAKE, 1L);
                      return null;
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(committed("event_seq")).isEqualTo(before);
    uow.run(() -> null);

    assertThat(committed("event_seq"))
        .as("the next unit takes the numbers the rolled back one had")
        .isEqualTo(before + 3);
  }

  @Test
  void advance_returns_the_last_number_and_current_sees_it_in_the_unit() {
    AtomicLong seen = new AtomicLong();
    hooks.register(
        Phase.AUDIT,
        "test.audit",
        () -> {
          long last = counters.advance(CounterName.AUDIT_SEQ, 4);
          seen.set(last - counters.current(CounterName.AUDIT_SEQ));
        });

    uow.run(() -> null);

    assertThat(seen.get()).isZero();
  }

  @Test
  void the_phase_guard_refuses_every_forbidden_combination_and_allows_the_owners() {
    List<String> outcomes = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      for (CounterName name :
          List.of(CounterName.EVENT_SEQ, CounterName.AUDIT_SEQ, CounterName.PERMISSION_VERSION)) {
        outcomes.add(phase.code() + " advance " + name + " " + attempt(phase, name, true));
        outcomes.add(phase.code() + " current " + name + " " + attempt(phase, name, false));
      }
    }

    assertThat(outcomes)
        .filteredOn(o -> o.endsWith(" ok"))
        .containsExactlyInAnyOrder(
            "rights_begin advance permission_version ok",
            "sync advance event_seq ok",
            "audit advance audit_seq ok",
            "rights_begin current event_seq ok",
            "rights_begin current audit_seq ok",
            "rights_begin current permission_version ok",
            "sync current event_seq ok",
            "sync current audit_seq ok",
            "sync current permission_version ok",
            "audit current event_seq ok",
            "audit current audit_seq ok",
            "audit current permission_version ok");
    assertThat(outcomes).filteredOn(o -> !o.endsWith(" ok")).allMatch(o -> o.endsWith(" internal"));
    assertThat(outcomes).hasSize(4 * 3 * 2);
  }

  /** Runs one call of a counter in one phase of a fresh unit and says how it ended. */
  private static String attempt(Phase phase, CounterName name, boolean advance) {
    HookRegistry registry = new HookRegistry();
    PgUnitOfWork unit = new PgUnitOfWork(PG.app(), SETTINGS, registry, d -> {}, new Random());
    CounterService guarded = new CounterService(unit, new JooqCounterRepository());
    Runnable call = advance ? () -> guarded.advance(name, 1) : () -> guarded.current(name);
    try {
      if (phase == Phase.WORK) {
        unit.run(
            () -> {
              call.run();
              return null;
            });
      } else {
        registry.register(phase, "test.guard", call::run);
        unit.run(() -> null);
      }
      return "ok";
    } catch (BothyException e) {
      return e.kind().code();
    }
  }

  @Test
  void unknown_names_and_amounts_below_one_are_rejected_before_any_sql() {
    List<ErrorKind> kinds = new ArrayList<>();
    hooks.register(
        Phase.SYNC,
        "test.bad-calls",
        () -> {
          for (Runnable bad :
              List.<Runnable>of(
                  () -> counters.advance(new CounterName("job_seq"), 1),
                  () -> counters.advance(CounterName.EVENT_SEQ, 0),
                  () -> counters.advance(CounterName.EVENT_SEQ, -1),
                  () -> counters.current(new CounterName("")))) {
            try {
              bad.run();
            } catch (BothyException e) {
              kinds.add(e.kind());
            }
          }
        });

    uow.run(() -> null);

    assertThat(kinds)
        .containsExactly(
            ErrorKind.INTERNAL, ErrorKind.INTERNAL, ErrorKind.INTERNAL, ErrorKind.INTERNAL);
    assertThat(repositoryCalls.get()).isZero();
  }

  @Test
  void counters_outside_a_unit_are_an_internal_error() {
    assertThatThrownBy(() -> counters.advance(CounterName.EVENT_SEQ, 1))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL));
    assertThat(repositoryCalls.get()).isZero();
  }

  private static void sleepRandomly() {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(3));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns why the visible ranges are not one block from start + 1, or null when they are. */
  private static String contiguityProblem(long start) {
    List<long[]> ranges = new ArrayList<>();
    try (Connection c = PG.app().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT first_seq, last_seq FROM test_ranges ORDER BY first_seq")) {
      while (rs.next()) {
        ranges.add(new long[] {rs.getLong(1), rs.getLong(2)});
      }
    } catch (SQLException e) {
      return e.getMessage();
    }
    long expected = start + 1;
    for (long[] range : ranges) {
      if (range[0] != expected) {
        return "expected " + expected + " but the next visible range starts at " + range[0];
      }
      expected = range[1] + 1;
    }
    return null;
  }

  private static long committed(String name) throws SQLException {
    return single("SELECT value FROM sequence_counters WHERE name = '" + name + "'");
  }

  private static long single(String sql) throws SQLException {
    try (Connection c = PG.app().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void ownerExecute(String sql) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
