package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHook;
import dev.bothy.kernel.txn.PhaseHooks;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The phase hook registry of one process: open while the application assembles, frozen when it
 * starts (or at the first unit of work, whichever comes first).
 *
 * <p>Thread-safe.
 */
public final class HookRegistry implements PhaseHooks {
  private record Named(String name, PhaseHook hook) {}

  private final Map<Phase, List<Named>> hooks = new EnumMap<>(Phase.class);
  private final Set<String> names = new HashSet<>();
  // Written once by freeze(); every unit reads it without a lock.
  private volatile Map<Phase, List<PhaseHook>> frozenHooks;

  /** Creates an empty, open registry. */
  public HookRegistry() {
    for (Phase phase : Phase.values()) {
      hooks.put(phase, new ArrayList<>());
    }
  }

  @Override
  public synchronized void register(Phase phase, String name, PhaseHook hook) {
    if (frozenHooks != null) {
      throw BothyException.internal(
          "phase hook " + name + " registered after start: register hooks during assembly");
    }
    if (!phase.isHookPhase()) {
      throw BothyException.internal(
          "phase hook " + name + " registered for the work phase, which runs no hooks");
    }
    if (!names.add(name)) {
      throw BothyException.internal("phase hook " + name + " is registered twice");
    }
    hooks.get(phase).add(new Named(name, hook));
  }

  @Override
  public synchronized List<String> registrations() {
    List<String> lines = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      for (Named named : hooks.get(phase)) {
        lines.add(phase.code() + ": " + named.name());
      }
    }
    return List.copyOf(lines);
  }

  /**
   * Returns the names of the classes whose code the registered hooks run: the hook's class, or for
   * a lambda or method reference the class that declares it. The architecture rule that limits
   * {@code Counters} to phase hooks is derived from this list.
   *
   * @return the class names, in registration order, without duplicates
   */
  public synchronized List<String> hookClassNames() {
    List<String> classes = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      for (Named named : hooks.get(phase)) {
        String name = named.hook().getClass().getName();
        int lambda = name.indexOf("$$Lambda");
        String declaring = lambda >= 0 ? name.substring(0, lambda) : name;
        if (!classes.contains(declaring)) {
          classes.add(declaring);
        }
      }
    }
    return List.copyOf(classes);
  }

  /** Freezes the registry; later registrations fail. Idempotent and cheap once frozen. */
  public void freeze() {
    if (frozenHooks != null) {
      return;
    }
    synchronized (this) {
      if (frozenHooks == null) {
        Map<Phase, List<PhaseHook>> snapshot = new EnumMap<>(Phase.class);
        hooks.forEach(
            (phase, named) -> snapshot.put(phase, named.stream().map(Named::hook).toList()));
        frozenHooks = snapshot;
      }
    }
  }

  /**
   * Tells whether the registry froze.
   *
   * @return true after {@link #freeze()}
   */
  public boolean frozen() {
    return frozenHooks != null;
  }

  /**
   * Returns the hooks of a phase in run order; only after the registry froze, so the list can no
   * longer change and reading it takes no lock.
   */
  List<PhaseHook> hooks(Phase phase) {
    Map<Phase, List<PhaseHook>> snapshot = frozenHooks;
    if (snapshot == null) {
      throw BothyException.internal("phase hooks read before the registry froze");
    }
    return snapshot.get(phase);
  }
}
