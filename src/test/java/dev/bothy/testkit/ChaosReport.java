package dev.bothy.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a chaos suite found on one transport: the clean run's end state and, per fault, whether the
 * run under it ended in the same state, with the first difference when not.
 *
 * @param transport the transport
 * @param clean the clean run's end state
 * @param cleanDeliveries how many deliveries dispatch handled in the clean run
 * @param outcomes one per fault run, in the order asked for
 */
public record ChaosReport(
    BusTransport transport, EndState clean, int cleanDeliveries, List<Outcome> outcomes) {
  /**
   * One run under a fault.
   *
   * @param fault the fault
   * @param difference where the end state first differs from the clean run's, or why the run did
   *     not end (a bound reached); empty when it converged
   * @param deliveries how many deliveries dispatch handled (handler runs and duplicates)
   * @param took the run's wall time
   */
  public record Outcome(Fault fault, Optional<String> difference, int deliveries, Duration took) {
    /** Checks the fields. */
    public Outcome {
      Objects.requireNonNull(fault, "fault");
      Objects.requireNonNull(difference, "difference");
      Objects.requireNonNull(took, "took");
    }

    /**
     * Tells whether the run converged to the clean end state.
     *
     * @return true when it did
     */
    public boolean converged() {
      return difference.isEmpty();
    }
  }

  /** Copies the outcomes. */
  public ChaosReport {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(clean, "clean");
    outcomes = List.copyOf(outcomes);
  }

  /**
   * Returns the outcome of a fault.
   *
   * @param fault the fault
   * @return its outcome
   * @throws IllegalArgumentException when the fault was not run
   */
  public Outcome outcome(Fault fault) {
    return outcomes.stream()
        .filter(o -> o.fault() == fault)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(fault + " was not run on " + transport));
  }

  /**
   * Fails when a fault's run differs from the clean run, naming each such fault and its first
   * difference.
   *
   * @throws AssertionError when a run did not converge
   */
  public void assertConverged() {
    List<String> failures = new ArrayList<>();
    for (Outcome o : outcomes) {
      o.difference().ifPresent(d -> failures.add(o.fault() + " on " + transport + ": " + d));
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(
          "the end state under a fault differs from the clean run's:\n"
              + String.join("\n", failures));
    }
  }

  @Override
  public String toString() {
    StringBuilder s =
        new StringBuilder("chaos suite on ")
            .append(transport)
            .append(": clean run ")
            .append(cleanDeliveries)
            .append(" deliveries");
    for (Outcome o : outcomes) {
      s.append("\n  ")
          .append(o.fault())
          .append(o.converged() ? " converged" : " DIFFERS")
          .append(", ")
          .append(o.deliveries())
          .append(" deliveries, ")
          .append(o.took().toMillis())
          .append(" ms");
    }
    return s.toString();
  }
}
