package dev.bothy.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Set;

/** The arrows of DESIGN.md section 4, checked on the main classes. */
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
  static final ArchRule jersey_and_jackson_only_in_wire_and_api =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.bothy.wire..", "dev.bothy.api..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.glassfish.jersey..", "jakarta.ws.rs..", "com.fasterxml.jackson..");

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

  @ArchTest
  static final ArchRule jobs_use_only_the_kernel_platform_pg_and_the_lifecycle_port =
      classes()
          .that()
          .resideInAPackage("dev.bothy.platform.jobs..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..",
              "org.slf4j..",
              "org.jooq..",
              "dev.bothy.kernel..",
              "dev.bothy.platform.pg..",
              "dev.bothy.platform.lifecycle",
              "dev.bothy.platform.jobs..")
          .because(
              "DESIGN.md section 4: platform.jobs may use kernel and platform.pg, and the loop"
                  + " primitive of platform.lifecycle for its background loops");

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
              "dev.bothy.api..")
          .because(
              "DESIGN.md section 4: api uses the kernel, the sync port and the platform ports;"
                  + " never sync's app, domain or adapters");

  @ArchTest
  static final ArchRule only_wire_uses_the_api =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.bothy.wire..", "dev.bothy.api..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.bothy.api..");

  @ArchTest
  static final ArchRule api_resources_hold_no_sql_and_no_transactions =
      noClasses()
          .that()
          .resideInAPackage("dev.bothy.api.http..")
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

  @ArchTest
  static final ArchRule domain_packages_use_only_the_jdk_and_the_kernel =
      classes()
          .that()
          .resideInAPackage("..domain..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "dev.bothy.kernel..", "..domain..")
          .allowEmptyShould(true);

  @ArchTest
  static final ArchRule no_catch_all_packages =
      noClasses()
          .should()
          .resideInAnyPackage("..util..", "..utils..", "..common..", "..helpers..", "..misc..");

  /**
   * The rule {@code counters_are_used_only_by_phase_hooks}: only the instance module, the assembly
   * and the classes that the real registrations run as phase hooks may use {@link
   * dev.bothy.instance.Counters}. Built from the hook registry of a running assembly (see
   * InProcessAppTest), never from a hand-written list.
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
