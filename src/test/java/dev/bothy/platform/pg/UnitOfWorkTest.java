package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.testing.PgExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class UnitOfWorkTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final TxSettings SETTINGS =
      new TxSettings(
          Duration.ofSeconds(20),
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          4,
          Duration.ofMillis(5),
          Duration.ofMillis(50));

  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  private HookRegistry hooks;
  private PgUnitOfWork uow;

  @BeforeAll
  static void createScratchTable() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE scratch (id int PRIMARY KEY, v text NOT NULL)");
      st.execute("GRANT SELECT, INSERT, UPDATE ON scratch TO bothy_app");
    }
  }

  @BeforeEach
  void setUp() throws SQLException {
    hooks = new HookRegistry();
    uow = unitOfWork(SETTINGS);
    ownerExecute("TRUNCATE scratch");
    ownerExecute("INSERT INTO scratch VALUES (1, 'one'), (2, 'two')");
  }

  @AfterEach
  void noUnitLeftOnThisThread() {
    assertThat(uow.inUnit()).isFalse();
  }

  private PgUnitOfWork unitOfWork(TxSettings settings) {
    return new PgUnitOfWork(
        PG.app(),
        settings,
        hooks,
        d -> {
          sleeps.add(d);
          Thread.sleep(d.toMillis());
        },
        new Random(7));
  }

  @Test
  void commits_the_work_and_returns_its_result() throws SQLException {
    String result =
        uow.run(
            () -> {
              PgTx.dsl().execute("INSERT INTO scratch VALUES (3, 'three')");
              return "done";
            });

    assertThat(result).isEqualTo("done");
    assertThat(valueOf(3)).contains("three");
  }

  @Test
  void rolls_back_on_an_exception_and_runs_no_after_commit() throws SQLException {
    List<String> ran = new ArrayList<>();

    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      PgTx.dsl().execute("INSERT INTO scratch VALUES (3, 'three')");
                      uow.afterCommit(() -> ran.add("after"));
                      throw new IllegalStateException("boom");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");

    assertThat(valueOf(3)).isEmpty();
    assertThat(ran).isEmpty();
  }

  @Test
  void after_commit_callbacks_run_in_order_after_the_commit_and_one_failing_does_not_stop_the_rest()
      throws SQLException {
    List<String> seen = new ArrayList<>();

    uow.run(
        () -> {
          PgTx.dsl().execute("UPDATE scratch SET v = 'changed' WHERE id = 1");
          uow.afterCommit(() -> seen.add("first:" + valueOfUnchecked(1)));
          uow.afterCommit(
              () -> {
                throw new IllegalStateException("callback fails");
              });
          uow.afterCommit(() -> seen.add("third"));
          return null;
        });

    assertThat(seen).containsExactly("first:changed", "third");
  }

  @Test
  void a_real_deadlock_between_two_units_is_retried_and_both_finish() throws Exception {
    CyclicBarrier bothHoldFirstLock = new CyclicBarrier(2);
    AtomicInteger attempts = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> a = pool.submit(() -> crossUpdate(1, 2, "a", bothHoldFirstLock, attempts));
      Future<String> b = pool.submit(() -> crossUpdate(2, 1, "b", bothHoldFirstLock, attempts));

      assertThat(a.get(60, TimeUnit.SECONDS)).isEqualTo("a");
      assertThat(b.get(60, TimeUnit.SECONDS)).isEqualTo("b");
    } finally {
      pool.shutdownNow();
    }
    assertThat(attempts.get())
        .as("one unit was chosen as the deadlock victim and retried")
        .isEqualTo(3);
    assertThat(sleeps).hasSize(1);
    String first = valueOf(1).orElseThrow();
    assertThat(valueOf(2)).as("the unit that finished last wrote both rows").contains(first);
    assertThat(first).isIn("a", "b");
  }

  private String crossUpdate(
      int first, int second, String value, CyclicBarrier barrier, AtomicInteger attempts) {
    return uow.run(
        () -> {
          int attempt = attempts.incrementAndGet();
          PgTx.dsl().execute("UPDATE scratch SET v = ? WHERE id = ?", value, first);
          if (attempt <= 2) {
            barrier.await(30, TimeUnit.SECONDS);
          }
          PgTx.dsl().execute("UPDATE scratch SET v = ? WHERE id = ?", value, second);
          return value;
        });
  }

  @Test
  void a_unit_that_keeps_hitting_lock_timeouts_stops_after_the_max_attempts() throws Exception {
    uow =
        unitOfWork(
            new TxSettings(
                Duration.ofSeconds(20),
                Duration.ofMillis(50),
                Duration.ofSeconds(30),
                3,
                Duration.ofMillis(5),
                Duration.ofMillis(20)));
    AtomicInteger attempts = new AtomicInteger();
    try (Connection holder = PG.owner().getConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT * FROM scratch WHERE id = 1 FOR UPDATE");
      }

      assertThatThrownBy(
              () ->
                  uow.run(
                      () -> {
                        attempts.incrementAndGet();
                        return PgTx.dsl().execute("UPDATE scratch SET v = 'x' WHERE id = 1");
                      }))
          .isInstanceOfSatisfying(
              BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
          .hasMessageContaining("3 attempts")
          .hasMessageContaining("database.txMaxAttempts")
          .hasMessageContaining("55P03");
      holder.rollback();
    }
    assertThat(attempts.get()).isEqualTo(3);
    assertThat(sleeps).hasSize(2);
    assertThat(valueOf(1)).contains("one");
  }

  @Test
  void a_retried_unit_forgets_the_values_and_callbacks_of_the_failed_attempt() {
    TxKey<String> key = TxKey.of("test.key");
    AtomicInteger attempts = new AtomicInteger();
    List<String> callbacks = new ArrayList<>();

    String result =
        uow.run(
            () -> {
              int attempt = attempts.incrementAndGet();
              assertThat(uow.get(key)).isEmpty();
              uow.put(key, "attempt " + attempt);
              uow.afterCommit(() -> callbacks.add("attempt " + attempt));
              if (attempt == 1) {
                throw new SQLException("could not serialize access", "40001");
              }
              return uow.get(key).orElseThrow();
            });

    assertThat(result).isEqualTo("attempt 2");
    assertThat(callbacks).containsExactly("attempt 2");
  }

  @Test
  void phases_run_in_order_and_hooks_only_in_their_phase() {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    hooks.register(Phase.AUDIT, "test.audit", () -> seen.add("audit:" + uow.currentPhase().code()));
    hooks.register(Phase.SYNC, "test.sync", () -> seen.add("sync:" + uow.currentPhase().code()));
    hooks.register(
        Phase.RIGHTS_BEGIN, "test.rights", () -> seen.add("rights:" + uow.currentPhase().code()));
    hooks.register(Phase.SYNC, "test.sync2", () -> seen.add("sync2:" + uow.currentPhase().code()));

    uow.run(() -> seen.add("work:" + uow.currentPhase().code()));

    assertThat(seen)
        .containsExactly(
            "rights:rights_begin", "work:work", "sync:sync", "sync2:sync", "audit:audit");
    assertThat(hooks.registrations())
        .containsExactly(
            "rights_begin: test.rights",
            "sync: test.sync",
            "sync: test.sync2",
            "audit: test.audit");
  }

  @Test
  void a_hook_that_throws_rolls_the_unit_back() throws SQLException {
    hooks.register(
        Phase.AUDIT,
        "test.failing",
        () -> {
          throw BothyException.invalid("audit refuses");
        });

    assertThatThrownBy(
            () -> uow.run(() -> PgTx.dsl().execute("INSERT INTO scratch VALUES (3, 'three')")))
        .isInstanceOf(BothyException.class)
        .hasMessage("audit refuses");
    assertThat(valueOf(3)).isEmpty();
  }

  @Test
  void tx_key_values_do_not_leak_between_concurrent_units() throws Exception {
    TxKey<String> key = TxKey.of("test.owner");
    int units = 6;
    CyclicBarrier allStored = new CyclicBarrier(units);
    ExecutorService pool = Executors.newFixedThreadPool(units);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < units; i++) {
        String mine = "unit-" + i;
        results.add(
            pool.submit(
                () ->
                    uow.run(
                        () -> {
                          assertThat(uow.get(key)).isEmpty();
                          uow.put(key, mine);
                          allStored.await(30, TimeUnit.SECONDS);
                          return uow.computeIfAbsent(key, () -> "other");
                        })));
      }
      for (int i = 0; i < units; i++) {
        assertThat(results.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("unit-" + i);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(uow.run(() -> uow.get(key))).isEmpty();
  }

  @Test
  void compute_if_absent_stores_once() {
    TxKey<List<String>> key = TxKey.of("test.list");

    int size =
        uow.run(
            () -> {
              uow.computeIfAbsent(key, ArrayList::new).add("a");
              uow.computeIfAbsent(key, ArrayList::new).add("b");
              return uow.get(key).orElseThrow().size();
            });

    assertThat(size).isEqualTo(2);
    assertThat(key.name()).isEqualTo("test.list");
    assertThat(key.toString()).contains("test.list");
  }

  @Test
  void the_unit_api_outside_a_unit_is_an_internal_error() {
    TxKey<String> key = TxKey.of("test.outside");

    assertThatThrownBy(uow::currentPhase)
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasMessageContaining("outside a unit of work");
    assertThatThrownBy(() -> uow.get(key)).hasMessageContaining("outside a unit of work");
    assertThatThrownBy(() -> uow.put(key, "x")).hasMessageContaining("outside a unit of work");
    assertThatThrownBy(() -> uow.computeIfAbsent(key, () -> "x"))
        .hasMessageContaining("outside a unit of work");
    assertThatThrownBy(() -> uow.afterCommit(() -> {}))
        .hasMessageContaining("outside a unit of work");
    assertThatThrownBy(PgTx::dsl).hasMessageContaining("outside a unit of work");
  }

  @Test
  void registering_a_hook_after_start_is_an_error() {
    uow.run(() -> null);

    assertThat(hooks.frozen()).isTrue();
    assertThatThrownBy(() -> hooks.register(Phase.SYNC, "test.late", () -> {}))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasMessageContaining("test.late")
        .hasMessageContaining("after start");
  }

  @Test
  void hooks_cannot_be_registered_for_the_work_phase_or_twice() {
    assertThatThrownBy(() -> hooks.register(Phase.WORK, "test.work", () -> {}))
        .hasMessageContaining("work phase");
    hooks.register(Phase.SYNC, "test.once", () -> {});
    assertThatThrownBy(() -> hooks.register(Phase.AUDIT, "test.once", () -> {}))
        .hasMessageContaining("registered twice");
  }

  @Test
  void units_do_not_nest() {
    assertThatThrownBy(() -> uow.run(() -> uow.run(() -> "inner")))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("do not nest");
  }

  @Test
  void a_checked_exception_from_the_work_comes_wrapped_as_internal() {
    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      throw new java.io.IOException("disk");
                    }))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasRootCauseInstanceOf(java.io.IOException.class);
  }

  @Test
  void a_database_error_that_is_not_retryable_fails_at_once() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      attempts.incrementAndGet();
                      return PgTx.dsl().execute("INSERT INTO scratch VALUES (1, 'duplicate')");
                    }))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT))
        .hasMessageContaining("SQLSTATE 23505");
    assertThat(attempts.get()).isEqualTo(1);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void a_missing_table_or_column_says_to_run_db_migrate() {
    assertThatThrownBy(() -> uow.run(() -> PgTx.dsl().execute("select * from no_such_table")))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("SQLSTATE 42P01")
        .hasMessageContaining("java -jar bothy.jar db migrate");
    assertThatThrownBy(
            () -> uow.run(() -> PgTx.dsl().execute("select no_such_column from scratch")))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("SQLSTATE 42703")
        .hasMessageContaining("java -jar bothy.jar db migrate");
  }

  @Test
  void a_statement_timeout_is_unavailable_and_a_data_error_invalid() {
    uow =
        unitOfWork(
            new TxSettings(
                Duration.ofMillis(100),
                Duration.ofMillis(50),
                Duration.ofSeconds(30),
                3,
                Duration.ofMillis(5),
                Duration.ofMillis(20)));

    assertThatThrownBy(() -> uow.run(() -> PgTx.dsl().execute("select pg_sleep(5)")))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("SQLSTATE 57014");
    assertThatThrownBy(() -> uow.run(() -> PgTx.dsl().execute("select 1 / 0")))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID))
        .hasMessageContaining("SQLSTATE 22012");
    assertThat(sleeps).as("neither is retried").isEmpty();
  }

  @Test
  void an_interrupt_inside_the_work_keeps_the_interrupt_flag() {
    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      throw new InterruptedException("stop");
                    }))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE));
    assertThat(Thread.interrupted()).as("the flag was set, and is cleared here").isTrue();
  }

  @Test
  void cancel_statement_ends_the_running_statement_on_the_server_and_the_unit_rolls_back()
      throws Exception {
    java.util.concurrent.CountDownLatch written = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.ExecutorService thread =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      java.util.concurrent.atomic.AtomicReference<Thread> unitThread =
          new java.util.concurrent.atomic.AtomicReference<>();
      java.util.concurrent.Future<Object> unit =
          thread.submit(
              () ->
                  uow.run(
                      () -> {
                        unitThread.set(Thread.currentThread());
                        PgTx.dsl().execute("UPDATE scratch SET v = 'cancelled' WHERE id = 1");
                        written.countDown();
                        // Blocked on its socket: no interrupt reaches it.
                        return PgTx.dsl().execute("select pg_sleep(60)");
                      }));
      assertThat(written.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      // The statement may not have reached the server yet: cancel until the unit ends.
      long began = System.nanoTime();
      while (!unit.isDone()) {
        uow.cancelStatement(unitThread.get());
        Thread.sleep(20);
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));
      }
      assertThatThrownBy(unit::get)
          .hasCauseInstanceOf(BothyException.class)
          .hasRootCauseInstanceOf(SQLException.class);
    } finally {
      thread.shutdownNow();
    }
    assertThat(valueOf(1)).contains("one");
    // A thread that runs no unit: nothing happens.
    uow.cancelStatement(Thread.currentThread());
  }

  @Test
  void every_unit_runs_with_the_three_timeouts_set_once_on_its_connection() throws SQLException {
    HikariDataSource single = PG.pool("bothy_app", 1);
    uow = new PgUnitOfWork(single, SETTINGS, hooks, d -> {}, new Random(5));
    // The first unit on a fresh connection fails: the timeouts must survive its rollback.
    assertThatThrownBy(
            () ->
                uow.run(
                    () -> {
                      throw new IllegalStateException("the work failed");
                    }))
        .hasMessage("the work failed");
    List<String> inside =
        uow.run(
            () -> {
              List<String> shown =
                  List.of(
                      show("statement_timeout"),
                      show("lock_timeout"),
                      show("idle_in_transaction_session_timeout"));
              // A unit's own SET LOCAL ends with it.
              PgTx.dsl().execute("SET LOCAL lock_timeout = '1s'");
              return shown;
            });

    assertThat(inside).containsExactly("20s", "5s", "30s");
    assertThat(uow.run(() -> show("lock_timeout"))).isEqualTo("5s");
    try (Connection c = single.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW lock_timeout")) {
      rs.next();
      assertThat(rs.getString(1))
          .as("set for the session once, not per unit: no round trip in each unit")
          .isEqualTo("5s");
    }

    // Another unit of work with other timeouts on the same connection gets its own.
    TxSettings other =
        new TxSettings(
            Duration.ofSeconds(7),
            Duration.ofSeconds(3),
            Duration.ofSeconds(9),
            SETTINGS.maxAttempts(),
            SETTINGS.retryBaseDelay(),
            SETTINGS.retryMaxDelay());
    PgUnitOfWork second = new PgUnitOfWork(single, other, hooks, d -> {}, new Random(6));
    assertThat(second.run(() -> List.of(show("statement_timeout"), show("lock_timeout"))))
        .containsExactly("7s", "3s");
    assertThat(uow.run(() -> show("statement_timeout"))).isEqualTo("20s");
  }

  @Test
  void the_timeouts_cost_one_statement_per_physical_connection_not_one_per_unit() throws Exception {
    HikariDataSource single = PG.pool("bothy_app", 1);
    AtomicInteger sets = new AtomicInteger();
    uow = new PgUnitOfWork(counting(single, sets), SETTINGS, hooks, d -> {}, new Random(7));
    for (int i = 0; i < 5; i++) {
      assertThat(uow.run(() -> show("lock_timeout"))).isEqualTo("5s");
    }
    assertThat(sets).as("five units on one connection, one set_config").hasValue(1);

    single.getHikariPoolMXBean().softEvictConnections();
    assertThat(uow.run(() -> show("lock_timeout")))
        .as("a new physical connection gets them too")
        .isEqualTo("5s");
    assertThat(sets).hasValue(2);
  }

  /** The pool, with connections that count the statements setting the timeouts. */
  private static DataSource counting(DataSource pool, AtomicInteger sets) {
    return watching(
        pool,
        (method, args) -> {
          if (method.getName().equals("prepareStatement")
              && args[0] instanceof String sql
              && sql.contains("set_config")) {
            sets.incrementAndGet();
          }
        });
  }

  /** The pool, with connections that count their commits. */
  private static DataSource countingCommits(DataSource pool, AtomicInteger commits) {
    return watching(
        pool,
        (method, args) -> {
          if (method.getName().equals("commit")) {
            commits.incrementAndGet();
          }
        });
  }

  /** The pool, with connections that show each call to {@code seen} before making it. */
  private static DataSource watching(DataSource pool, BiConsumer<Method, Object[]> seen) {
    return (DataSource)
        Proxy.newProxyInstance(
            UnitOfWorkTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(method, pool, args);
              if (!method.getName().equals("getConnection")) {
                return result;
              }
              Connection connection = (Connection) result;
              return Proxy.newProxyInstance(
                  UnitOfWorkTest.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    seen.accept(m, a);
                    return invoke(m, connection, a);
                  });
            });
  }

  private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void a_statement_unit_commits_its_one_statement_without_a_commit_round_trip() throws Exception {
    AtomicInteger commits = new AtomicInteger();
    uow =
        new PgUnitOfWork(
            countingCommits(PG.app(), commits), SETTINGS, hooks, d -> {}, new Random(7));
    List<String> ran = new ArrayList<>();

    int inserted =
        uow.runStatement(
            () -> {
              uow.afterCommit(() -> ran.add("after " + valueOfUnchecked(3)));
              return PgTx.dsl().execute("INSERT INTO scratch VALUES (3, 'three')");
            });

    assertThat(inserted).isEqualTo(1);
    assertThat(valueOf(3)).contains("three");
    assertThat(ran).as("after the statement committed").containsExactly("after three");
    assertThat(commits).as("auto-commit: no COMMIT of its own").hasValue(0);

    uow.run(() -> PgTx.dsl().execute("INSERT INTO scratch VALUES (4, 'four')"));
    assertThat(commits).as("a unit of run commits").hasValue(1);
  }

  @Test
  void a_second_statement_in_a_statement_unit_is_refused_before_it_is_sent() throws SQLException {
    assertThatThrownBy(
            () ->
                uow.runStatement(
                    () -> {
                      PgTx.dsl().execute("INSERT INTO scratch VALUES (3, 'three')");
                      return PgTx.dsl().execute("INSERT INTO scratch VALUES (4, 'four')");
                    }))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasMessageContaining("one statement");

    assertThat(valueOf(4)).as("never sent").isEmpty();
    assertThat(valueOf(3)).as("the first was its own transaction").contains("three");
  }

  @Test
  void a_failing_statement_unit_writes_nothing_and_runs_no_after_commit() throws SQLException {
    List<String> ran = new ArrayList<>();

    assertThatThrownBy(
            () ->
                uow.runStatement(
                    () -> {
                      uow.afterCommit(() -> ran.add("after"));
                      return PgTx.dsl()
                          .execute("INSERT INTO scratch VALUES (5, 'five'), (1, 'again')");
                    }))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT));

    assertThat(valueOf(5)).isEmpty();
    assertThat(ran).isEmpty();
    assertThat(uow.run(() -> PgTx.dsl().fetchValue("SELECT 1")))
        .as("the connection is usable")
        .isEqualTo(1);
  }

  @Test
  void a_statement_unit_is_retried_like_a_unit_and_counts_each_attempt_afresh() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String result =
        uow.runStatement(
            () -> {
              if (attempts.incrementAndGet() == 1) {
                // The statement itself fails as a deadlock victim would: nothing committed.
                PgTx.dsl()
                    .execute(
                        "DO $$ BEGIN RAISE EXCEPTION 'victim' USING ERRCODE = '40P01'; END $$");
              }
              return PgTx.dsl().fetchValue("SELECT 'ok'").toString();
            });

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(2);
  }

  @Test
  void a_statement_unit_does_not_nest_in_a_unit() {
    assertThatThrownBy(() -> uow.run(() -> uow.runStatement(() -> 1)))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasMessageContaining("do not nest");
  }

  @Test
  void a_pool_that_cannot_connect_is_reported_as_unavailable() {
    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
    config.setJdbcUrl(PG.jdbcUrl());
    config.setUsername("bothy_app");
    config.setInitializationFailTimeout(-1);
    config.setConnectionTimeout(250);
    com.zaxxer.hikari.HikariDataSource closed = new com.zaxxer.hikari.HikariDataSource(config);
    closed.close();
    PgUnitOfWork broken =
        new PgUnitOfWork(closed, SETTINGS, new HookRegistry(), d -> {}, new Random());

    assertThatThrownBy(() -> broken.run(() -> null))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("database unavailable");
  }

  private static String show(String setting) {
    return PgTx.dsl().fetchValue("SHOW " + setting).toString();
  }

  private static Optional<String> valueOf(int id) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT v FROM scratch WHERE id = " + id)) {
      return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
    }
  }

  private static String valueOfUnchecked(int id) {
    try {
      return valueOf(id).orElse("none");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void ownerExecute(String sql) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
