package dev.bothy.bus.app;

import dev.bothy.sync.Event;
import java.util.Objects;

/**
 * The tests' only way to arm the fault points of {@link Dispatch} (ADR 0026): it lives in the
 * dispatch's package among the test sources, so it reaches the package-private seam, and production
 * code has nothing that could arm it (ArchUnit's {@code
 * dispatch_fault_points_are_armed_only_by_tests} fails the build on a main class that calls {@code
 * armFaultPoints}).
 *
 * <pre>{@code
 * DispatchFaults.arm(dispatch, (point, handler, event) -> point == Point.BEFORE_COMMIT);
 * ... a delivery throws an Error for which DispatchFaults.isCrash(e) holds ...
 * DispatchFaults.disarm(dispatch);
 * }</pre>
 */
public final class DispatchFaults {
  private DispatchFaults() {}

  /** Where dispatch may be stopped as if its process died there. */
  public enum Point {
    /** In the handler's unit, after the handler returned, before the unit's hooks and commit. */
    BEFORE_COMMIT,
    /** After the handler's unit committed, before the transport answers the delivery. */
    AFTER_COMMIT
  }

  /** What a test decides at each fault point dispatch reaches. */
  @FunctionalInterface
  public interface Plan {
    /**
     * Called at each fault point, on the dispatching thread (inside the handler's unit for {@link
     * Point#BEFORE_COMMIT}, so the plan may use the unit's connection).
     *
     * @param point where dispatch is
     * @param handler the handler's name
     * @param event the event delivered
     * @return true to crash there: the delivery ends with an error for which {@link #isCrash}
     *     holds, its unit rolled back (before the commit) and no verdict acted on
     */
    boolean crashAt(Point point, String handler, Event event);
  }

  /**
   * Arms the fault points of a dispatch.
   *
   * @param dispatch the dispatch
   * @param plan where to crash
   */
  public static void arm(Dispatch dispatch, Plan plan) {
    Objects.requireNonNull(plan, "plan");
    dispatch.armFaultPoints(
        (point, handler, event) -> {
          Point p = Point.valueOf(point.name());
          if (plan.crashAt(p, handler, event)) {
            throw new Dispatch.FaultCrash(point, handler);
          }
        });
  }

  /**
   * Disarms the fault points of a dispatch.
   *
   * @param dispatch the dispatch
   */
  public static void disarm(Dispatch dispatch) {
    dispatch.armFaultPoints(Dispatch.FaultPoints.NONE);
  }

  /**
   * Tells whether a failure is a crash of an armed fault point.
   *
   * @param failure what a delivery threw
   * @return true for a simulated crash
   */
  public static boolean isCrash(Throwable failure) {
    return failure instanceof Dispatch.FaultCrash;
  }
}
