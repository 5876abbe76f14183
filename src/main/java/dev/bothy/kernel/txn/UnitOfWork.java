package dev.bothy.kernel.txn;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * One database transaction with ordered phases: {@code rights_begin}, {@code work}, {@code sync},
 * {@code audit}, then commit.
 *
 * <p>The unit applies {@code database.statementTimeout}, {@code database.lockTimeout} and {@code
 * database.idleInTransactionTimeout} to every unit (on the connection's session, set once per
 * connection), and retries the whole unit on a deadlock ({@code 40P01}), a lock timeout ({@code
 * 55P03}) or a serialization failure ({@code 40001}) with jittered exponential backoff, up to
 * {@code database.txMaxAttempts} attempts.
 *
 * <p>The methods other than {@link #run(Work)} act on the unit of the calling thread.
 *
 * <pre>{@code
 * UUID id = uow.run(() -> {
 *   appender.append(draft);
 *   return draft.id();
 * });
 * }</pre>
 */
public interface UnitOfWork {

  /**
   * Runs a unit: opens a transaction, runs the phases and commits.
   *
   * @param work the caller's work, run in {@link Phase#WORK}; may run more than once
   * @param <T> the result type
   * @return the work's result, after a successful commit and the {@link #afterCommit} callbacks
   * @throws dev.bothy.kernel.BothyException {@code internal} when called inside a unit; {@code
   *     unavailable} when the retryable failures outlast {@code database.txMaxAttempts} or the
   *     database cannot be reached; for any other database error, the kind its SQLSTATE class says
   *     ({@code conflict} for an integrity violation, {@code invalid} for a data exception, {@code
   *     unavailable} for a lost connection or a statement timeout, else {@code internal}); a {@code
   *     BothyException} from the work or a hook unchanged
   * @throws RuntimeException any other unchecked exception from the work, unchanged; a checked one
   *     comes wrapped in an {@code internal} {@code BothyException} (an interrupt keeps the
   *     thread's interrupt flag and is {@code unavailable})
   */
  <T> T run(Work<T> work);

  /**
   * Runs a unit whose work sends exactly one statement, as that statement's own transaction
   * (auto-commit): one round trip to the database where {@link #run(Work)} costs the statement and
   * a {@code COMMIT}. For the hot single statements of a runtime (the job runtime's fetch and
   * completion, ADR 0029); anything that writes in more than one statement uses {@link #run(Work)}.
   *
   * <p>Everything else is as in {@link #run(Work)}: the timeouts, the retries of the whole unit,
   * the phase hooks, the unit's values and callbacks, the {@link #afterCommit} callbacks once the
   * statement committed. A statement of a hook counts as the unit's. A second statement is refused
   * before it is sent, with {@code internal}; the first has committed by then, which is why only
   * work that sends one statement by construction may run here.
   *
   * @param work the caller's work; sends one statement; may run more than once
   * @param <T> the result type
   * @return the work's result, after its statement committed and the {@link #afterCommit} callbacks
   *     ran
   * @throws dev.bothy.kernel.BothyException as {@link #run(Work)}, and {@code internal} for a
   *     second statement
   * @throws RuntimeException as {@link #run(Work)}
   */
  <T> T runStatement(Work<T> work);

  /**
   * Runs work in the calling thread's unit when there is one, else in a new unit: for services that
   * are called both from inside a unit (then they must see and join its transaction) and on their
   * own.
   *
   * @param work the work
   * @param <T> the result type
   * @return the work's result
   * @throws dev.bothy.kernel.BothyException as {@link #run(Work)}; inside a unit, unchecked
   *     exceptions of the work pass unchanged and checked ones are mapped as {@link #run(Work)}
   *     maps them (by SQLSTATE, an interrupt as {@code unavailable}, else {@code internal})
   */
  <T> T join(Work<T> work);

  /**
   * Cancels, on the database server, the statement that the unit running on {@code thread} executes
   * at this moment, so that statement fails at once and the unit rolls back (a cancelled statement
   * is not retried). For a stop that cannot wait any longer: an interrupt does not reach a thread
   * blocked on its database socket, and the statement would run on, holding its locks and its
   * connection, while the stop moves on.
   *
   * <p>Safe from any thread. Does nothing when {@code thread} runs no unit; a cancel that arrives
   * between two statements of the unit is lost, which is why callers interrupt the thread as well.
   *
   * @param thread the thread whose unit to cancel
   */
  void cancelStatement(Thread thread);

  /**
   * Returns the phase the calling thread's unit is in.
   *
   * @return the current phase
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  Phase currentPhase();

  /**
   * Tells whether the calling thread runs inside a unit.
   *
   * @return true inside {@link #run(Work)}
   */
  boolean inUnit();

  /**
   * Returns the value of a key in the current unit.
   *
   * @param key the key
   * @param <T> the value type
   * @return the value, or empty when none was stored in this unit
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  <T> Optional<T> get(TxKey<T> key);

  /**
   * Returns the value of a key in the current unit, storing a new one first when there is none.
   *
   * @param key the key
   * @param create makes the value when the unit has none
   * @param <T> the value type
   * @return the stored value
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  <T> T computeIfAbsent(TxKey<T> key, Supplier<T> create);

  /**
   * Stores a value for a key in the current unit, replacing any earlier one.
   *
   * @param key the key
   * @param value the value, not null
   * @param <T> the value type
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  <T> void put(TxKey<T> key, T value);

  /**
   * Registers a callback that runs after the current unit commits, in registration order, on the
   * calling thread. It never runs when the unit rolls back, and a retried unit forgets the
   * callbacks of the failed attempt. A callback that throws is logged and the others still run.
   *
   * @param callback the callback
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  void afterCommit(Runnable callback);

  /**
   * Registers a callback that runs when the current attempt of the unit ends, committed or rolled
   * back, on the calling thread: for releasing what the attempt took (a permit, a slot). A callback
   * that throws is logged and the others still run.
   *
   * @param callback the callback
   * @throws dev.bothy.kernel.BothyException {@code internal} outside a unit
   */
  void onCompletion(Runnable callback);
}
