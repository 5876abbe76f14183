package dev.bothy.arch;

import com.tngtech.archunit.lang.ArchRule;
import java.util.List;

/** Gives tests of other packages the rules that need facts of a running assembly. */
public final class ArchitectureAccess {
  private ArchitectureAccess() {}

  /**
   * Returns the rule {@code counters_are_used_only_by_phase_hooks} for a set of hook classes.
   *
   * @param hookClassNames the classes the registered phase hooks run
   * @return the rule
   */
  public static ArchRule countersAreUsedOnlyByPhaseHooks(List<String> hookClassNames) {
    return ArchitectureTest.countersAreUsedOnlyByPhaseHooks(hookClassNames);
  }
}
