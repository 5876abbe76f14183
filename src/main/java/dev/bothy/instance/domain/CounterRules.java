package dev.bothy.instance.domain;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.Phase;
import java.util.Map;

/**
 * The rules of the sequence counters, checked before any SQL.
 *
 * <p>Each counter has one phase in which it may be advanced: the lock order of every unit is then
 * fixed (permission version first, event sequence and audit chain last), so two units can never
 * wait on each other's counters in opposite order. Reading is allowed in every hook phase.
 */
public final class CounterRules {
  private static final Map<String, Phase> ADVANCE_PHASE =
      Map.of(
          "permission_version", Phase.RIGHTS_BEGIN,
          "event_seq", Phase.SYNC,
          "audit_seq", Phase.AUDIT);

  private CounterRules() {}

  /**
   * Checks that a counter may be advanced by {@code n} in a phase.
   *
   * @param name the counter name
   * @param n the amount
   * @param phase the current phase of the unit
   * @throws BothyException {@code internal} for an unknown name, {@code n < 1}, or a phase that
   *     does not own the counter; the message names counter and phase
   */
  public static void checkAdvance(String name, long n, Phase phase) {
    Phase owner = requireKnown(name);
    if (n < 1) {
      throw BothyException.internal("counter " + name + " must advance by at least 1, not " + n);
    }
    if (phase != owner) {
      throw BothyException.internal(
          "counter "
              + name
              + " may be advanced only in phase "
              + owner.code()
              + ", not in "
              + phase.code());
    }
  }

  /**
   * Checks that a counter may be read in a phase.
   *
   * @param name the counter name
   * @param phase the current phase of the unit
   * @throws BothyException {@code internal} for an unknown name or a phase that runs no hooks
   */
  public static void checkCurrent(String name, Phase phase) {
    requireKnown(name);
    if (!phase.isHookPhase()) {
      throw BothyException.internal(
          "counter " + name + " may be read only in a hook phase, not in " + phase.code());
    }
  }

  /**
   * Checks a counter name.
   *
   * @param name the counter name
   * @return the phase that owns the counter
   * @throws BothyException {@code internal} for an unknown name
   */
  public static Phase requireKnown(String name) {
    Phase owner = name == null ? null : ADVANCE_PHASE.get(name);
    if (owner == null) {
      throw BothyException.internal("unknown counter name: " + name);
    }
    return owner;
  }
}
