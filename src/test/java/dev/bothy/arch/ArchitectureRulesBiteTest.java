package dev.bothy.arch;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.bothy.arch.fixture.CountersModule;
import dev.bothy.arch.fixture.OpensItsOwnConnection;
import dev.bothy.arch.fixture.UsesCounters;
import dev.bothy.arch.fixture.UsesDropwizard;
import org.junit.jupiter.api.Test;

/** Proves the architecture rules fail on a class that breaks them. */
class ArchitectureRulesBiteTest {

  @Test
  void the_connection_rule_fails_on_a_class_that_opens_its_own_connection() {
    JavaClasses offender = new ClassFileImporter().importClasses(OpensItsOwnConnection.class);

    assertThatThrownBy(
            () ->
                ArchitectureTest.only_platform_pg_opens_connections_or_transactions.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("getConnection")
        .hasMessageContaining("commit");
  }

  @Test
  void the_dropwizard_rule_fails_on_a_class_outside_wire_that_uses_dropwizard() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesDropwizard.class);

    assertThatThrownBy(() -> ArchitectureTest.dropwizard_only_in_wire.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.dropwizard.util.Duration");
  }

  @Test
  void the_counters_rule_fails_on_a_class_that_is_no_registered_phase_hook() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesCounters.class);

    assertThatThrownBy(
            () ->
                ArchitectureTest.countersAreUsedOnlyByPhaseHooks(java.util.List.of())
                    .check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("counters_are_used_only_by_phase_hooks")
        .hasMessageContaining(UsesCounters.class.getName());
  }

  @Test
  void the_counters_rule_fails_on_a_module_named_class_outside_a_module_root_package() {
    JavaClasses offender = new ClassFileImporter().importClasses(CountersModule.class);

    assertThatThrownBy(
            () ->
                ArchitectureTest.countersAreUsedOnlyByPhaseHooks(java.util.List.of())
                    .check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(CountersModule.class.getName());
  }

  @Test
  void the_counters_rule_allows_a_class_registered_as_a_phase_hook() {
    JavaClasses hook = new ClassFileImporter().importClasses(UsesCounters.class);

    ArchitectureTest.countersAreUsedOnlyByPhaseHooks(
            java.util.List.of(UsesCounters.class.getName()))
        .check(hook);
  }
}
