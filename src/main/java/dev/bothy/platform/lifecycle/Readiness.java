package dev.bothy.platform.lifecycle;

import dev.bothy.kernel.BothyException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * The readiness registry: named checks that must all pass before the process takes traffic ({@code
 * /readyz} on the admin port).
 *
 * <p>Modules add checks during assembly (the database, later the schema version and the tail). A
 * check that throws counts as failing. Thread-safe.
 */
public final class Readiness {
  private final Map<String, BooleanSupplier> checks = new TreeMap<>();

  /** Creates an empty registry. */
  public Readiness() {}

  /**
   * Adds a check.
   *
   * @param name a stable name such as {@code "database"}, shown when it fails
   * @param check returns true when ready; must be fast and never block long
   * @throws BothyException {@code internal} on a duplicate name
   */
  public synchronized void register(String name, BooleanSupplier check) {
    if (checks.putIfAbsent(name, check) != null) {
      throw BothyException.internal("readiness check " + name + " is registered twice");
    }
  }

  /**
   * Runs every check.
   *
   * @return the names of the failing checks in name order; empty when ready
   */
  public List<String> failing() {
    Map<String, BooleanSupplier> snapshot;
    synchronized (this) {
      snapshot = new TreeMap<>(checks);
    }
    List<String> failing = new ArrayList<>();
    snapshot.forEach(
        (name, check) -> {
          boolean ready;
          try {
            ready = check.getAsBoolean();
          } catch (RuntimeException e) {
            ready = false;
          }
          if (!ready) {
            failing.add(name);
          }
        });
    return List.copyOf(failing);
  }

  /**
   * Returns the names of the registered checks.
   *
   * @return the names in name order
   */
  public synchronized List<String> names() {
    return List.copyOf(checks.keySet());
  }
}
