package dev.bothy.arch;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.bothy.arch.fixture.CountersModule;
import dev.bothy.arch.fixture.CreatesAStream;
import dev.bothy.arch.fixture.OpensItsOwnConnection;
import dev.bothy.arch.fixture.UsesCounters;
import dev.bothy.arch.fixture.UsesDropwizard;
import dev.bothy.arch.fixture.UsesHttpClient;
import dev.bothy.arch.fixture.UsesModuleInternals;
import dev.bothy.arch.fixture.app.AppOpensASocket;
import dev.bothy.arch.fixture.app.AppUsesAnAdapter;
import dev.bothy.arch.fixture.domain.DomainUsesAnotherDomain;
import dev.bothy.arch.fixture.domain.DomainUsesItsOwnDomain;
import dev.bothy.arch.fixture.domain.DomainUsesJooq;
import dev.bothy.arch.fixture.modules.api.ApiUsesInstance;
import dev.bothy.arch.fixture.modules.api.ApiUsesSync;
import dev.bothy.arch.fixture.modules.sync.SyncPort;
import dev.bothy.arch.fixture.modules.sync.SyncUsesApi;
import org.junit.jupiter.api.Test;

/**
 * Proves the architecture rules fail on a class that breaks them, and name the offending class and
 * dependency. The rules that judge modules by their package take the root under which modules live,
 * so the stand-ins in {@code fixture.modules} are judged with the real DESIGN.md table.
 */
class ArchitectureRulesBiteTest {
  private static final String FIXTURE_MODULES = "dev.bothy.arch.fixture.modules";

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

  /**
   * The tests' accessor of the fault points is the one class that arms them; imported as if it were
   * a main class, it breaks the rule.
   */
  @Test
  void the_fault_point_rule_fails_on_a_class_that_arms_dispatch_s_fault_points() {
    JavaClasses offender =
        new ClassFileImporter().importClasses(dev.bothy.bus.app.DispatchFaults.class);

    assertThatThrownBy(
            () -> ArchitectureTest.dispatch_fault_points_are_armed_only_by_tests.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("armFaultPoints")
        .hasMessageContaining("FaultCrash");
  }

  @Test
  void the_bus_rules_fail_on_a_class_outside_the_bus_that_creates_a_stream() {
    JavaClasses offender = new ClassFileImporter().importClasses(CreatesAStream.class);

    assertThatThrownBy(
            () -> ArchitectureTest.only_nats_streams_creates_or_changes_a_stream.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("addStream");
    assertThatThrownBy(() -> ArchitectureTest.the_nats_client_only_in_the_bus.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.nats.client.JetStreamManagement");
    assertThatThrownBy(
            () -> ArchitectureTest.only_wire_system_and_console_use_the_bus.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.bothy.bus.Streams");
  }

  @Test
  void the_dropwizard_rule_fails_on_a_class_outside_wire_that_uses_dropwizard() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesDropwizard.class);

    assertThatThrownBy(() -> ArchitectureTest.dropwizard_only_in_wire.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.dropwizard.util.Duration");
  }

  @Test
  void the_http_client_rule_fails_on_a_class_outside_the_webhooks_http_adapter() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesHttpClient.class);

    assertThatThrownBy(
            () -> ArchitectureTest.http_client_only_in_the_webhooks_http_adapter.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(UsesHttpClient.class.getName())
        .hasMessageContaining("org.apache.hc.core5.util.Timeout");
  }

  @Test
  void the_connection_rule_of_domain_and_app_fails_on_a_service_that_opens_a_socket() {
    JavaClasses offender = new ClassFileImporter().importClasses(AppOpensASocket.class);

    assertThatThrownBy(() -> ArchitectureTest.domain_and_app_open_no_connections.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(AppOpensASocket.class.getName())
        .hasMessageContaining("java.net.Socket");
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

  @Test
  void the_internals_rule_fails_on_another_module_that_uses_a_domain_class() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesModuleInternals.class);

    assertThatThrownBy(
            () ->
                ArchitectureTest.module_internals_are_used_only_by_their_module_and_wire.check(
                    offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(UsesModuleInternals.class.getName())
        .hasMessageContaining("dev.bothy.instance.domain.SemVer")
        .hasMessageContaining("internal package of module instance");
  }

  @Test
  void the_internals_rule_allows_another_module_that_uses_a_port() {
    JavaClasses portUser = new ClassFileImporter().importClasses(UsesCounters.class);

    ArchitectureTest.module_internals_are_used_only_by_their_module_and_wire.check(portUser);
  }

  @Test
  void the_domain_rule_fails_on_a_domain_class_that_uses_jooq() {
    JavaClasses offender = new ClassFileImporter().importClasses(DomainUsesJooq.class);

    assertThatThrownBy(
            () -> ArchitectureTest.domain_packages_use_only_the_jdk_and_the_kernel.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(DomainUsesJooq.class.getName())
        .hasMessageContaining("org.jooq.impl.DSL");
  }

  @Test
  void the_domain_rule_fails_on_a_domain_class_that_uses_the_domain_of_another_module() {
    JavaClasses offender = new ClassFileImporter().importClasses(DomainUsesAnotherDomain.class);

    assertThatThrownBy(
            () -> ArchitectureTest.domain_packages_use_only_the_jdk_and_the_kernel.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(DomainUsesAnotherDomain.class.getName())
        .hasMessageContaining("dev.bothy.instance.domain.SemVer");
  }

  @Test
  void the_domain_rule_allows_the_jdk_the_kernel_and_the_own_domain() {
    JavaClasses pure = new ClassFileImporter().importClasses(DomainUsesItsOwnDomain.class);

    ArchitectureTest.domain_packages_use_only_the_jdk_and_the_kernel.check(pure);
  }

  @Test
  void the_app_rule_fails_on_a_service_that_calls_an_adapter() {
    JavaClasses offender = new ClassFileImporter().importClasses(AppUsesAnAdapter.class);

    assertThatThrownBy(() -> ArchitectureTest.app_never_uses_adapters.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(AppUsesAnAdapter.class.getName())
        .hasMessageContaining("dev.bothy.arch.fixture.adapters.FixtureStore");
  }

  @Test
  void the_cycle_rule_fails_on_two_modules_that_use_each_other() {
    // Slices hold only imported classes, so the port that closes the cycle is imported too.
    JavaClasses offenders =
        new ClassFileImporter().importClasses(ApiUsesSync.class, SyncUsesApi.class, SyncPort.class);

    assertThatThrownBy(
            () -> ArchitectureTest.modulesAreFreeOfCycles(FIXTURE_MODULES).check(offenders))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Cycle detected")
        .hasMessageContaining(SyncUsesApi.class.getName())
        .hasMessageContaining(ApiUsesSync.class.getName());
  }

  @Test
  void the_cycle_rule_allows_an_arrow_one_way() {
    JavaClasses oneWay = new ClassFileImporter().importClasses(ApiUsesSync.class, SyncPort.class);

    ArchitectureTest.modulesAreFreeOfCycles(FIXTURE_MODULES).check(oneWay);
  }

  @Test
  void the_arrows_rule_fails_on_an_arrow_the_design_table_does_not_draw() {
    JavaClasses offender = new ClassFileImporter().importClasses(ApiUsesInstance.class);

    assertThatThrownBy(
            () ->
                ArchitectureTest.modulesUseOnlyWhatTheDesignTableAllows(FIXTURE_MODULES)
                    .check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(ApiUsesInstance.class.getName())
        .hasMessageContaining("dev.bothy.arch.fixture.modules.instance.InstancePort")
        .hasMessageContaining("api may use only");
  }

  @Test
  void the_arrows_rule_allows_an_arrow_the_design_table_draws() {
    JavaClasses allowed = new ClassFileImporter().importClasses(ApiUsesSync.class);

    ArchitectureTest.modulesUseOnlyWhatTheDesignTableAllows(FIXTURE_MODULES).check(allowed);
  }

  @Test
  void the_arrows_rule_fails_on_a_module_without_a_row_in_the_design_table() {
    JavaClasses offender = new ClassFileImporter().importClasses(UsesCounters.class);

    assertThatThrownBy(() -> ArchitectureTest.module_arrows_follow_the_design_table.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(UsesCounters.class.getName())
        .hasMessageContaining("module arch has no row");
  }
}
