package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHook;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.kernel.txn.Work;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL implementation of {@link UnitOfWork}: one pooled connection and one transaction
 * per attempt, the phases in order, the three timeouts of {@link TxSettings} on the connection's
 * session (set once per physical connection, ADR 0028), and retries of the whole unit on {@code
 * 40P01}, {@code 55P03} and {@code 40001}.
 *
 * <p>The unit is bound to the calling thread; stores reach it through {@link PgTx#dsl()}.
 * Thread-safe: any number of threads run units concurrently, each with its own connection.
 */
public final class PgUnitOfWork implements UnitOfWork {
  private static final Logger LOG = LoggerFactory.getLogger(PgUnitOfWork.class);
  private static final ThreadLocal<Unit> CURRENT = new ThreadLocal<>();

  // The timeouts each physical connection's session holds, by connection (weak keys: a connection
  // the pool closed leaves the map). Shared by every unit of work of the process, so two with
  // different settings on one pool each find the connection set for the other and set it again.
  private static final Map<PGConnection, String> SESSION_TIMEOUTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final DataSource dataSource;
  private final TxSettings settings;
  private final HookRegistry hooks;
  private final Sleeper sleeper;
  private final RetryBackoff backoff;
  private final String timeouts;
  // The connection of every running attempt, by thread, for cancelStatement. An entry leaves the
  // map before its connection goes back to the pool, under the same bin lock a cancel holds, so a
  // cancel never reaches a connection another unit borrowed since.
  private final Map<Thread, Connection> running = new ConcurrentHashMap<>();

  /**
   * Creates the unit of work over a pool.
   *
   * @param dataSource the pool of the runtime role
   * @param settings timeouts, attempts and backoff
   * @param hooks the phase hooks; frozen at the first unit
   * @param sleeper waits between attempts
   * @param random the jitter source
   */
  public PgUnitOfWork(
      DataSource dataSource,
      TxSettings settings,
      HookRegistry hooks,
      Sleeper sleeper,
      RandomGenerator random) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.hooks = Objects.requireNonNull(hooks, "hooks");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.backoff = new RetryBackoff(settings.retryBaseDelay(), settings.retryMaxDelay(), random);
    this.timeouts =
        settings.statementTimeout().toMillis()
            + "ms/"
            + settings.lockTimeout().toMillis()
            + "ms/"
            + settings.idleInTransactionTimeout().toMillis()
            + "ms";
  }

  @Override
  public <T> T run(Work<T> work) {
    return runUnit(work, false);
  }

  @Override
  public <T> T runStatement(Work<T> work) {
    return runUnit(work, true);
  }

  private <T> T runUnit(Work<T> work, boolean oneStatement) {
    Objects.requireNonNull(work, "work");
    if (CURRENT.get() != null) {
      throw BothyException.internal(
          "a unit of work is already running on this thread; units do not nest");
    }
    hooks.freeze();
    for (int attempt = 1; ; attempt++) {
      Attempt<T> done;
      try {
        done = attempt(work, oneStatement);
      } catch (RuntimeException | Error failure) {
        Optional<String> state = SqlStates.retryable(failure);
        if (state.isEmpty()) {
          throw failure;
        }
        if (attempt >= settings.maxAttempts()) {
          throw new BothyException(
              ErrorKind.UNAVAILABLE,
              "unit of work gave up after "
                  + attempt
                  + " attempts (database.txMaxAttempts), last SQLSTATE "
                  + state.get(),
              failure);
        }
        Duration delay = backoff.after(attempt);
        LOG.debug(
            "unit of work retried: sqlstate={} attempt={} delay_ms={}",
            state.get(),
            attempt,
            delay.toMillis());
        pause(delay, failure);
        continue;
      }
      done.unit().runAfterCommit();
      return done.result();
    }
  }

  private record Attempt<T>(Unit unit, T result) {}

  private <T> Attempt<T> attempt(Work<T> work, boolean oneStatement) {
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw BothyException.unavailable("database unavailable: no connection from the pool", e);
    }
    try (connection) {
      applyTimeouts(connection);
      // One statement needs no transaction block: in auto-commit it commits on its own, without
      // the COMMIT round trip (ADR 0029).
      connection.setAutoCommit(oneStatement);
      Unit unit = new Unit(connection, oneStatement);
      CURRENT.set(unit);
      running.put(Thread.currentThread(), connection);
      try {
        runHooks(unit, Phase.RIGHTS_BEGIN);
        unit.phase = Phase.WORK;
        T result = work.run();
        runHooks(unit, Phase.SYNC);
        runHooks(unit, Phase.AUDIT);
        unit.phase = null;
        if (!oneStatement) {
          connection.commit();
        }
        return new Attempt<>(unit, result);
      } catch (Throwable failure) {
        if (!oneStatement) {
          rollback(connection, failure);
        }
        throw rethrowable(failure);
      } finally {
        running.remove(Thread.currentThread());
        CURRENT.remove();
        unit.runCompletion();
      }
    } catch (SQLException e) {
      throw rethrowable(e);
    }
  }

  /**
   * Sets the three timeouts on the connection's session unless this connection already holds them:
   * one round trip per physical connection instead of one per unit (ADR 0028). It runs in
   * auto-commit, outside the unit's transaction, so a unit that rolls back cannot undo it; a unit's
   * own {@code SET LOCAL} still ends with the unit.
   */
  private void applyTimeouts(Connection connection) throws SQLException {
    PGConnection physical = connection.unwrap(PGConnection.class);
    if (timeouts.equals(SESSION_TIMEOUTS.get(physical))) {
      return;
    }
    connection.setAutoCommit(true);
    // set_config(..., false) is a session-level SET; one statement for the three.
    DSL.using(connection, SQLDialect.POSTGRES)
        .select(
            sessionSetting("statement_timeout", settings.statementTimeout()),
            sessionSetting("lock_timeout", settings.lockTimeout()),
            sessionSetting(
                "idle_in_transaction_session_timeout", settings.idleInTransactionTimeout()))
        .fetch();
    SESSION_TIMEOUTS.put(physical, timeouts);
  }

  private static Field<String> sessionSetting(String name, Duration value) {
    return DSL.function(
        "set_config",
        SQLDataType.VARCHAR,
        DSL.val(name),
        DSL.val(value.toMillis() + "ms"),
        DSL.val(false));
  }

  private void runHooks(Unit unit, Phase phase) {
    unit.phase = phase;
    for (PhaseHook hook : hooks.hooks(phase)) {
      hook.run();
    }
  }

  private static void rollback(Connection connection, Throwable failure) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      // The connection is broken; Hikari evicts it on close. Keep the first failure.
      failure.addSuppressed(e);
    }
  }

  /**
   * Turns a failure of an attempt into what the caller sees. Retryable database errors pass through
   * for the retry loop; other database errors become a {@link BothyException} of the kind their
   * SQLSTATE class says, so no driver or jOOQ type crosses the port; the caller's own unchecked
   * exceptions pass unchanged.
   */
  private static RuntimeException rethrowable(Throwable failure) {
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure instanceof BothyException bothy) {
      return bothy;
    }
    if (failure instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return BothyException.unavailable("unit of work interrupted", failure);
    }
    if (SqlStates.retryable(failure).isPresent()) {
      return failure instanceof RuntimeException runtime
          ? runtime
          : new BothyException(ErrorKind.INTERNAL, "unit of work failed", failure);
    }
    Optional<String> state = SqlStates.first(failure);
    if (state.isPresent() && SqlStates.schemaBehind(state.get())) {
      return new BothyException(
          SqlStates.kindOf(state.get()),
          "the database lacks a table or column of Bothy's schema, SQLSTATE "
              + state.get()
              + ": run java -jar bothy.jar db migrate against this database",
          failure);
    }
    if (state.isPresent()) {
      return new BothyException(
          SqlStates.kindOf(state.get()),
          "unit of work failed in the database, SQLSTATE " + state.get(),
          failure);
    }
    if (failure instanceof org.jooq.exception.DataAccessException) {
      return new BothyException(ErrorKind.INTERNAL, "unit of work failed in jOOQ", failure);
    }
    if (failure instanceof RuntimeException runtime) {
      return runtime;
    }
    return new BothyException(ErrorKind.INTERNAL, "unit of work failed", failure);
  }

  private void pause(Duration delay, Throwable failure) {
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      BothyException stop =
          BothyException.unavailable("unit of work interrupted while waiting to retry", e);
      stop.addSuppressed(failure);
      throw stop;
    }
  }

  @Override
  public <T> T join(Work<T> work) {
    if (CURRENT.get() == null) {
      return run(work);
    }
    try {
      return work.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw rethrowable(e);
    }
  }

  @Override
  public void cancelStatement(Thread thread) {
    running.computeIfPresent(
        thread,
        (t, connection) -> {
          try {
            // The protocol's cancel request, sent on a connection of its own: it needs no pool
            // connection and ends the statement on the server, where an interrupt cannot reach.
            connection.unwrap(PGConnection.class).cancelQuery();
          } catch (SQLException e) {
            LOG.warn(
                "unit of work cancel failed: error.type={} sqlstate={}",
                e.getClass().getName(),
                e.getSQLState());
          }
          return connection;
        });
  }

  @Override
  public Phase currentPhase() {
    Unit unit = currentUnit("currentPhase()");
    if (unit.phase == null) {
      throw BothyException.internal("currentPhase() called while the unit commits");
    }
    return unit.phase;
  }

  @Override
  public boolean inUnit() {
    return CURRENT.get() != null;
  }

  @Override
  public <T> Optional<T> get(TxKey<T> key) {
    return Optional.ofNullable(currentUnit("get(" + key.name() + ")").value(key));
  }

  @Override
  public <T> T computeIfAbsent(TxKey<T> key, Supplier<T> create) {
    Unit unit = currentUnit("computeIfAbsent(" + key.name() + ")");
    T value = unit.value(key);
    if (value == null) {
      value = Objects.requireNonNull(create.get(), "created value");
      unit.values.put(key, value);
    }
    return value;
  }

  @Override
  public <T> void put(TxKey<T> key, T value) {
    currentUnit("put(" + key.name() + ")").values.put(key, Objects.requireNonNull(value, "value"));
  }

  @Override
  public void onCompletion(Runnable callback) {
    currentUnit("onCompletion()").completion.add(Objects.requireNonNull(callback, "callback"));
  }

  @Override
  public void afterCommit(Runnable callback) {
    currentUnit("afterCommit()").afterCommit.add(Objects.requireNonNull(callback, "callback"));
  }

  static Unit currentUnit(String what) {
    Unit unit = CURRENT.get();
    if (unit == null) {
      throw BothyException.internal(what + " called outside a unit of work");
    }
    return unit;
  }

  /** The state of one attempt of a unit. Confined to its thread. */
  static final class Unit {
    private final Connection connection;
    private final boolean oneStatement;
    private final Map<TxKey<?>, Object> values = new IdentityHashMap<>();
    private final List<Runnable> afterCommit = new ArrayList<>();
    private final List<Runnable> completion = new ArrayList<>();
    private Phase phase = Phase.RIGHTS_BEGIN;
    private DSLContext dsl;

    Unit(Connection connection, boolean oneStatement) {
      this.connection = connection;
      this.oneStatement = oneStatement;
    }

    DSLContext dsl() {
      if (dsl == null) {
        dsl =
            oneStatement
                ? DSL.using(new OneStatement(connection), SQLDialect.POSTGRES)
                : DSL.using(connection, SQLDialect.POSTGRES);
      }
      return dsl;
    }

    @SuppressWarnings("unchecked")
    <T> T value(TxKey<T> key) {
      return (T) values.get(key);
    }

    void runCompletion() {
      for (Runnable callback : completion) {
        try {
          callback.run();
        } catch (RuntimeException e) {
          LOG.error(
              "completion callback failed: error.type={}",
              ErrorFields.type(e),
              ErrorFields.redacted(e));
        }
      }
    }

    void runAfterCommit() {
      for (Runnable callback : afterCommit) {
        try {
          callback.run();
        } catch (RuntimeException e) {
          LOG.error(
              "after-commit callback failed: error.type={}",
              ErrorFields.type(e),
              ErrorFields.redacted(e));
        }
      }
    }
  }

  /**
   * The connection of a statement unit, handed out for one statement: in auto-commit a second one
   * would be a transaction of its own, so it is refused before it is sent. jOOQ acquires the
   * connection once per statement it runs (and {@link RenderedQuery} through it).
   */
  private static final class OneStatement implements ConnectionProvider {
    private final Connection connection;
    private boolean handedOut;

    OneStatement(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Connection acquire() {
      if (handedOut) {
        throw BothyException.internal(
            "a statement unit (runStatement) sends one statement; a second one would commit on"
                + " its own: run this work with run");
      }
      handedOut = true;
      return connection;
    }

    @Override
    public void release(Connection released) {
      // The unit closes its connection when it ends.
    }
  }
}
