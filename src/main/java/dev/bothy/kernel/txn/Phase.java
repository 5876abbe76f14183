package dev.bothy.kernel.txn;

/**
 * The phases of a unit of work, in the order they run.
 *
 * <p>{@link #WORK} is the caller's code; the other three run the hooks registered for them. The
 * counters that serialize commits are advanced only in the hook phase that owns them, which is why
 * the order is fixed: everything a unit writes is known before {@link #SYNC} numbers its events.
 */
public enum Phase {
  /** Before the caller's work: permission changes take their version here. */
  RIGHTS_BEGIN("rights_begin"),
  /** The caller's work. */
  WORK("work"),
  /** After the work: the event log numbers and writes the unit's events. */
  SYNC("sync"),
  /** Last before commit: the audit chain. */
  AUDIT("audit");

  private final String code;

  Phase(String code) {
    this.code = code;
  }

  /**
   * Returns the lower-case name used in logs, errors and the hook golden file.
   *
   * @return for example {@code "rights_begin"}
   */
  public String code() {
    return code;
  }

  /**
   * Tells whether hooks may be registered for this phase.
   *
   * @return true for every phase but {@link #WORK}
   */
  public boolean isHookPhase() {
    return this != WORK;
  }
}
