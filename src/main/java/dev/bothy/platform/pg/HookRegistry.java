package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.PhaseHook;
import dev.bothy.kernel.txn.PhaseHooks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The phase hook registry of one process: open while the application assembles, frozen when it
 * starts (or at the first unit of work, whichever comes first).
 *
 * <p>A process declares the order of every hook in one place ({@link #HookRegistry(List)}, lines of
 * the form {@code "sync: jobs.insert"}): hooks run in that order whatever order the modules
 * register them in, and a hook that is not declared is refused. A registry without a declared order
 * (tests of a single module) runs hooks in registration order.
 *
 * <p>Thread-safe.
 */
public final class HookRegistry implements PhaseHooks {
  private record Named(String name, PhaseHook hook) {}

  private final Map<Phase, List<Named>> hooks = new EnumMap<>(Phase.class);
  private final Set<String> names = new HashSet<>();
  private final List<String> order;
  // Written once by freeze(); every unit reads it without a lock.
  private volatile Map<Phase, List<PhaseHook>> frozenHooks;

  /** Creates an empty, open registry that runs hooks in registration order. */
  public HookRegistry() {
    this(List.of());
  }

  /**
   * Creates an empty, open registry with the declared order of every hook.
   *
   * @param order lines {@code "<phase>: <name>"} in run order; empty for registration order
   * @throws IllegalArgumentException when a line names a phase that runs no hooks, or twice
   */
  public HookRegistry(List<String> order) {
    this.order = List.copyOf(order);
    if (new HashSet<>(this.order).size() != this.order.size()) {
      throw new IllegalArgumentException("the phase hook order names a hook twice: " + order);
    }
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
    if (!order.isEmpty() && !order.contains(line(phase, name))) {
      throw BothyException.internal(
          "phase hook "
              + line(phase, name)
              + " is not in the declared order: add it where the process declares it");
    }
    if (!names.add(name)) {
      throw BothyException.internal("phase hook " + name + " is registered twice");
    }
    List<Named> registered = hooks.get(phase);
    registered.add(new Named(name, hook));
    if (!order.isEmpty()) {
      registered.sort(Comparator.comparingInt(n -> order.indexOf(line(phase, n.name()))));
    }
  }

  @Override
  public synchronized List<String> registrations() {
    List<String> lines = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      for (Named named : hooks.get(phase)) {
        lines.add(line(phase, named.name()));
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

  private static String line(Phase phase, String name) {
    return phase.code() + ": " + name;
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
