package dev.bothy.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Set;

/**
 * The arrows of DESIGN.md section 4, checked on the main classes (test classes, and so the
 * fixtures, are not imported: {@link ImportOption.DoNotIncludeTests}).
 *
 * <p>Between modules: {@code module_arrows_follow_the_design_table} (a module uses only the modules
 * of its "may use" row, and every module has a row), {@code
 * module_internals_are_used_only_by_their_module_and_wire} (other modules use only the port, the
 * module's root package), {@code modules_are_free_of_cycles} (one slice per module of the table,
 * each {@code platform.*} its own), {@code nothing_depends_on_wire}, {@code
 * only_wire_and_console_use_the_api}, {@code only_wire_system_and_console_use_the_bus}, {@code
 * api_uses_only_the_kernel_platform_and_the_sync_port}, {@code
 * jobs_use_only_the_kernel_and_platform_pg}, {@code lifecycle_uses_only_the_kernel}, {@code
 * telemetry_names_use_only_the_jdk} and {@code kernel_depends_on_nothing_but_the_jdk}.
 *
 * <p>Inside a module: {@code domain_packages_use_only_the_jdk_and_the_kernel} (and their own
 * domain), {@code app_never_uses_adapters}, {@code api_resources_hold_no_sql_and_no_transactions}.
 *
 * <p>Frameworks and the database: {@code generated_types_only_in_platform_and_postgres_adapters},
 * {@code jooq_only_in_platform_and_postgres_adapters}, {@code dropwizard_only_in_wire}, {@code
 * the_nats_client_only_in_the_bus}, {@code only_nats_streams_creates_or_changes_a_stream}, {@code
 * jersey_and_jackson_only_in_wire_and_the_http_modules}, {@code
 * only_platform_pg_opens_connections_or_transactions}, {@code
 * counters_are_used_only_by_phase_hooks} (built from a running assembly, see {@link
 * ArchitectureAccess}), {@code dispatch_fault_points_are_armed_only_by_tests} (ADR 0026) and {@code
 * no_catch_all_packages}.
 *
 * <p>{@link ArchitectureRulesBiteTest} runs the rules on fixtures in {@code dev.bothy.arch.fixture}
 * that break them and sees them fail, so a rule that cannot fail is caught: today the module
 * arrows, internals, cycle, domain and app rules, the connection, Dropwizard and counters rules,
 * and the three bus rules. The rules that judge modules by package take their root as a parameter,
 * so the bite tests run the real DESIGN.md table on stand-in modules under {@code fixture.modules}.
 */
@AnalyzeClasses(packages = "dev.bothy", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule kernel_depends_on_nothing_but_the_jdk =
      classes()
          .that()
          .resideInAPackage("dev.bothy.kernel..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "dev.bothy.kernel..");

  @ArchTest
  static final ArchRule generated_types_only_in_platform_and_postgres_adapters =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "dev.bothy.db..", "dev.bothy.platform..", "..adapters.postgres..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.bothy.db..");

  @ArchTest
  static final ArchRule jooq_only_in_platform_and_postgres_adapters =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "dev.bothy.db..", "dev.bothy.platform..", "..adapters.postgres..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.jooq..");

  @ArchTest
  static final ArchRule dropwizard_only_in_wire =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.bothy.wire..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.dropwizard..");

  @ArchTest
  static final ArchRule jersey_and_jackson_only_in_wire_and_the_http_modules =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.bothy.wire..", "dev.bothy.api..", "dev.bothy.console..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.glassfish.jersey..", "jakarta.ws.rs..", "com.fasterxml.jackson..");

  /**
   * Apache HttpClient serves one purpose, webhook delivery, and only through {@code
   * PinnedHttpTransport}, which pins the checked address (ADR 0017): another HTTP client elsewhere
   * would look names up again and undo the defence against DNS rebinding.
   */
  @ArchTest
  static final ArchRule http_client_only_in_the_webhooks_http_adapter =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.bothy.webhooks.adapters.http..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.apache.hc..")
          .because("ADR 0017: every outgoing webhook goes through the pinned transport");

  /**
   * A {@code domain} or {@code app} never opens a network connection itself: outgoing HTTP goes
   * through a transport port ({@code WebhookTransport}) whose adapter applies the network rules.
   */
  @ArchTest
  static final ArchRule domain_and_app_open_no_connections =
      noClasses()
          .that()
          .resideInAnyPackage("..domain..", "..app..")
          .should()
          .dependOnClassesThat()
          .belongToAnyOf(
              java.net.Socket.class,
              java.net.ServerSocket.class,
              java.net.URLConnection.class,
              java.net.HttpURLConnection.class,
              java.net.http.HttpClient.class,
              javax.net.SocketFactory.class,
              javax.net.ssl.SSLSocketFactory.class)
          .as("domain_and_app_open_no_connections")
          .because("ADR 0017: outgoing connections go through a transport adapter");

  @ArchTest
  static final ArchRule nothing_depends_on_wire =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.bothy.wire..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.bothy.wire..");

  @ArchTest
  static final ArchRule lifecycle_uses_only_the_kernel =
      classes()
          .that()
          .resideInAPackage("dev.bothy.platform.lifecycle..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..", "org.slf4j..", "dev.bothy.kernel..", "dev.bothy.platform.lifecycle..");

  /**
   * {@code platform.jobs} uses the kernel, {@code platform.pg} and, for the store of the {@code
   * jobs} table it owns, jOOQ and the generated types: DESIGN.md section 4 allows generated types
   * in {@code platform.*}, and ADR 0013 has every store, {@code JobStore} among them, write SQL
   * with jOOQ's DSL over the generated tables.
   */
  @ArchTest
  static final ArchRule jobs_use_only_the_kernel_and_platform_pg =
      classes()
          .that()
          .resideInAPackage("dev.bothy.platform.jobs..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..",
              "org.slf4j..",
              "org.jooq..",
              "dev.bothy.db..",
              "dev.bothy.kernel..",
              "dev.bothy.platform.pg..",
              "dev.bothy.platform.lifecycle..",
              "dev.bothy.platform.telemetry..",
              "dev.bothy.platform.jobs..")
          .because(
              "DESIGN.md section 4: platform.jobs may use kernel, platform.pg and its generated"
                  + " table; its wiring entry registers the workers with platform.lifecycle (ADR"
                  + " 0014)");

  @ArchTest
  static final ArchRule api_uses_only_the_kernel_platform_and_the_sync_port =
      classes()
          .that()
          .resideInAPackage("dev.bothy.api..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..",
              "jakarta.ws.rs..",
              "jakarta.annotation..",
              "com.fasterxml.jackson..",
              "io.swagger.v3..",
              // CommittingOutputStream only, in StreamFlushInterceptor.
              "org.glassfish.jersey.message.internal..",
              "org.slf4j..",
              "org.jooq..",
              "dev.bothy.db..",
              "dev.bothy.kernel..",
              "dev.bothy.platform.pg",
              "dev.bothy.platform.jobs",
              "dev.bothy.sync",
              "dev.bothy.webhooks",
              "dev.bothy.system",
              "dev.bothy.api..")
          .because(
              "DESIGN.md section 4: api uses the kernel, the sync port and the platform ports;"
                  + " never sync's app, domain or adapters; it serves the webhooks routes over"
                  + " the webhooks port only (D-WHS-7), the pings of flow 00 over the system"
                  + " port only");

  @ArchTest
  static final ArchRule only_wire_and_console_use_the_api =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.bothy.wire..", "dev.bothy.api..", "dev.bothy.console..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.bothy.api..")
          .because(
              "DESIGN.md section 4: the console uses the ports of every module, the api's tokens"
                  + " and scopes among them (D-CON-2)");

  @ArchTest
  static final ArchRule only_wire_system_and_console_use_the_bus =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "dev.bothy.wire..", "dev.bothy.bus..", "dev.bothy.system..", "dev.bothy.console..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.bothy.bus..")
          .because("DESIGN.md section 4: only system and console (and wire) use the bus ports");

  @ArchTest
  static final ArchRule the_nats_client_only_in_the_bus =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.bothy.bus..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.nats..")
          .because("DESIGN.md section 14: NATS is the bus module's business");

  @ArchTest
  static final ArchRule only_nats_streams_creates_or_changes_a_stream =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName("dev.bothy.bus.adapters.nats.NatsStreams")
          .should()
          .callMethodWhere(createsOrChangesAStream())
          .because(
              "bus.Streams declares the streams and NatsStreams alone puts them on the server");

  /**
   * ADR 0026: dispatch's fault points stop a delivery as a process death would, so nothing but a
   * test may arm them. The seam is package-private; this rule also keeps every main class of the
   * dispatch's own package from arming it or making its crash.
   */
  @ArchTest
  static final ArchRule dispatch_fault_points_are_armed_only_by_tests =
      noClasses()
          .should()
          .callCodeUnitWhere(armsDispatchFaultPoints())
          .because("ADR 0026: only tests arm the fault points of dispatch");

  @ArchTest
  static final ArchRule api_resources_hold_no_sql_and_no_transactions =
      noClasses()
          .that()
          .resideInAnyPackage("dev.bothy.api.http..", "dev.bothy.console..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.jooq..",
              "dev.bothy.db..",
              "dev.bothy.platform.pg..",
              "dev.bothy.kernel.txn..",
              "java.sql..")
          .because("STYLE.md: resources call module ports only; no SQL or transactions there");

  @ArchTest
  static final ArchRule telemetry_names_use_only_the_jdk =
      classes()
          .that()
          .resideInAPackage("dev.bothy.platform.telemetry..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "io.opentelemetry..", "dev.bothy.kernel..")
          .because("DESIGN.md section 4: platform.telemetry may use kernel and the OTel API");

  @ArchTest
  static final ArchRule only_platform_pg_opens_connections_or_transactions =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.bothy.platform.pg..")
          .should()
          .callMethodWhere(opensConnectionsOrTransactions())
          .because("only platform.pg opens connections or transactions (DESIGN.md section 7)");

  /**
   * A {@code domain} holds pure rules: it uses only {@code java.*}, the kernel (with {@code
   * kernel.txn}, for {@code Phase}) and the domain of its own module. Decided from the code as it
   * is: no domain uses its own module's port, so the port is not allowed either, and the domain
   * stays the innermost ring; the domain of another module was allowed before and is not now, since
   * it is that module's internal.
   */
  @ArchTest
  static final ArchRule domain_packages_use_only_the_jdk_and_the_kernel =
      classes()
          .that()
          .resideInAPackage("..domain..")
          .should(new Modules(Modules.ROOT).useOnlyTheJdkTheKernelAndTheirOwnDomain())
          .as("domain_packages_use_only_the_jdk_and_the_kernel")
          .because("STYLE.md rule 2: domain is pure Java, no I/O, no framework, no jOOQ")
          .allowEmptyShould(true);

  /**
   * A module's packages below its port ({@code app}, {@code domain}, {@code adapters} and any
   * other, such as {@code runtime} or {@code http}) are used only by the module itself and by
   * {@code wire}; other modules go through the port, the module's root package. The kernel is all
   * port ({@code kernel.txn} is part of what it offers), and the generated types have their own
   * rule.
   */
  @ArchTest
  static final ArchRule module_internals_are_used_only_by_their_module_and_wire =
      classes()
          .that()
          .resideInAPackage(Modules.ROOT + "..")
          .should(new Modules(Modules.ROOT).useOtherModulesOnlyThroughTheirPorts())
          .as("module_internals_are_used_only_by_their_module_and_wire")
          .because("DESIGN.md section 4: a module's root package is its port");

  /**
   * Services never call adapters: an {@code app} reaches storage and the outside through the
   * outgoing ports it declares, and {@code wire} hands it the adapters that implement them.
   */
  @ArchTest
  static final ArchRule app_never_uses_adapters =
      noClasses()
          .that()
          .resideInAPackage("..app..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("..adapters..")
          .as("app_never_uses_adapters")
          .because("STYLE.md rule 2: app implements the port over outgoing ports");

  /** The real instance of {@link #modulesAreFreeOfCycles(String)}. */
  @ArchTest static final ArchRule modules_are_free_of_cycles = modulesAreFreeOfCycles(Modules.ROOT);

  /** The real instance of {@link #modulesUseOnlyWhatTheDesignTableAllows(String)}. */
  @ArchTest
  static final ArchRule module_arrows_follow_the_design_table =
      modulesUseOnlyWhatTheDesignTableAllows(Modules.ROOT);

  @ArchTest
  static final ArchRule no_catch_all_packages =
      noClasses()
          .should()
          .resideInAnyPackage("..util..", "..utils..", "..common..", "..helpers..", "..misc..");

  /**
   * The rule {@code counters_are_used_only_by_phase_hooks}: only the instance module, the assembly,
   * the module wiring entries (a {@code *Module} class in a module's root package, which hands the
   * counters to the hook that owns one) and the classes that the real registrations run as phase
   * hooks may use {@link dev.bothy.instance.Counters}. Built from the hook registry of a running
   * assembly (see InProcessAppTest), never from a hand-written list.
   *
   * @param hookClassNames the classes the registered hooks run
   * @return the rule
   */
  static ArchRule countersAreUsedOnlyByPhaseHooks(List<String> hookClassNames) {
    return noClasses()
        .that()
        .resideOutsideOfPackages("dev.bothy.instance..", "dev.bothy.wire..")
        .and(
            DescribedPredicate.describe(
                "are not module wiring entries",
                (JavaClass c) ->
                    !(c.getSimpleName().endsWith("Module")
                        && c.getPackageName().matches("dev\\.bothy\\.[a-z]+"))))
        .and(
            DescribedPredicate.describe(
                "are not registered phase hooks",
                (JavaClass c) ->
                    hookClassNames.stream()
                        .noneMatch(h -> c.getName().equals(h) || c.getName().startsWith(h + "$"))))
        .should()
        .dependOnClassesThat()
        .areAssignableTo(dev.bothy.instance.Counters.class)
        .as("counters_are_used_only_by_phase_hooks")
        .allowEmptyShould(true);
  }

  /**
   * The rule {@code modules_are_free_of_cycles}: no chain of arrows leads from a module back to
   * itself. Each module of the DESIGN.md table is one slice: {@code root.(*)}, except that each
   * {@code root.platform.(*)} is a slice of its own, so an arrow from {@code platform.jobs} to
   * {@code platform.pg} is an arrow between two modules, not one inside {@code platform}.
   *
   * @param root the package whose subpackages are the modules; {@code dev.bothy} for the real run
   * @return the rule
   */
  static ArchRule modulesAreFreeOfCycles(String root) {
    return slices()
        .assignedFrom(new Modules(root).slices())
        .should()
        .beFreeOfCycles()
        .as("modules_are_free_of_cycles");
  }

  /**
   * The rule {@code module_arrows_follow_the_design_table}: a module uses only the modules of its
   * row of the "may use" column in DESIGN.md section 4 (kept in {@link Modules#MAY_USE}, where the
   * one row that differs from the table says why), and every module has a row. Whether it uses
   * their ports only is {@link #module_internals_are_used_only_by_their_module_and_wire}'s
   * business.
   *
   * @param root the package whose subpackages are the modules; {@code dev.bothy} for the real run
   * @return the rule
   */
  static ArchRule modulesUseOnlyWhatTheDesignTableAllows(String root) {
    return classes()
        .that()
        .resideInAPackage(root + "..")
        .should(new Modules(root).useOnlyTheModulesTheirRowAllows())
        .as("module_arrows_follow_the_design_table");
  }

  private static DescribedPredicate<JavaCall<?>> armsDispatchFaultPoints() {
    return DescribedPredicate.describe(
        "arm a fault point of dispatch or make its crash",
        call ->
            (call.getTargetOwner().getName().equals("dev.bothy.bus.app.Dispatch")
                    && call.getName().equals("armFaultPoints"))
                || call.getTargetOwner().getName().equals("dev.bothy.bus.app.Dispatch$FaultCrash"));
  }

  private static DescribedPredicate<JavaCall<?>> createsOrChangesAStream() {
    Set<String> verbs = Set.of("addStream", "updateStream", "deleteStream");
    return DescribedPredicate.describe(
        "create, update or delete a JetStream stream",
        call ->
            call.getTargetOwner().isAssignableTo("io.nats.client.JetStreamManagement")
                && verbs.contains(call.getName()));
  }

  private static DescribedPredicate<JavaCall<?>> opensConnectionsOrTransactions() {
    Set<String> connectionVerbs = Set.of("commit", "rollback", "setAutoCommit", "setSavepoint");
    Set<String> jooqTransactions =
        Set.of("transaction", "transactionResult", "transactionAsync", "connection");
    return DescribedPredicate.describe(
        "open a JDBC connection or run a transaction",
        call -> {
          String owner = call.getTargetOwner().getName();
          String name = call.getName();
          return (name.equals("getConnection")
                  && (owner.equals("javax.sql.DataSource")
                      || owner.equals("java.sql.DriverManager")
                      || call.getTargetOwner().isAssignableTo(javax.sql.DataSource.class)))
              || (owner.equals("java.sql.Connection") && connectionVerbs.contains(name))
              || (owner.equals("org.jooq.DSLContext") && jooqTransactions.contains(name))
              || (owner.equals("org.jooq.impl.DSL") && name.equals("using"));
        });
  }
}
