package dev.bothy.testkit;

import java.util.Objects;

/**
 * A script of events for a chaos suite: {@link #steps()} steps, each run in a unit of work of its
 * own, in order, by the same code in every run. A step writes what the consumer's handlers expect
 * to find (through the module's stores) and appends the events the consumer takes.
 *
 * <pre>{@code
 * Script script = Script.of(12, (i, ctx) -> {
 *   UUID ping = ctx.id("ping " + i);
 *   pings.insert(ping, ctx.now());
 *   ctx.append(new EventDraft("system.pinged", new ResourceRef("ping", ping), Optional.empty(),
 *       new Pinged(ping)));
 * });
 * }</pre>
 *
 * @param steps how many steps, at least 2 (the mid-run faults strike between the halves)
 * @param step what each step does
 */
public record Script(int steps, Step step) {
  /** One step of a script. */
  @FunctionalInterface
  public interface Step {
    /**
     * Runs step {@code index} inside its unit of work.
     *
     * @param index from 0
     * @param context the step's view of the unit
     * @throws Exception to fail the run
     */
    void run(int index, ScriptContext context) throws Exception;
  }

  /** Checks the fields. */
  public Script {
    Objects.requireNonNull(step, "step");
    if (steps < 2) {
      throw new IllegalArgumentException(
          "a chaos script needs at least 2 steps: the mid-run faults strike between its halves");
    }
  }

  /**
   * Returns a script.
   *
   * @param steps how many steps, at least 2
   * @param step what each step does
   * @return the script
   */
  public static Script of(int steps, Step step) {
    return new Script(steps, step);
  }
}
