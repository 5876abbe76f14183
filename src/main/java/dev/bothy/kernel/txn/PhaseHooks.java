package dev.bothy.kernel.txn;

import java.util.List;

/**
 * The registry of phase hooks: modules register at assembly, and the registry freezes when the
 * application starts, so the set of hooks is fixed for the life of the process.
 *
 * <p>Hooks of one phase run in registration order.
 */
public interface PhaseHooks {

  /**
   * Registers a hook for a phase.
   *
   * @param phase a hook phase ({@link Phase#isHookPhase()}), not {@link Phase#WORK}
   * @param name a unique name such as {@code "sync.append"}, shown in the golden file and logs
   * @param hook the code to run in that phase of every unit
   * @throws dev.bothy.kernel.BothyException {@code internal} after the registry froze, for the work
   *     phase, or for a duplicate name
   */
  void register(Phase phase, String name, PhaseHook hook);

  /**
   * Lists the registrations in run order, one {@code "phase: name"} line each.
   *
   * @return the registrations, for the golden file and the start log
   */
  List<String> registrations();
}
