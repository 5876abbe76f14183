package dev.bothy.arch;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The modules of DESIGN.md section 4 as the architecture rules see them: which module a class
 * belongs to, whether it sits in its module's port, and the "may use" column of the table.
 *
 * <p>A module is the first package below the root, except under {@code platform}, where each
 * subpackage ({@code platform.pg}, {@code platform.jobs}, ...) is a module of its own, as the table
 * lists them. The root is a parameter so the bite tests can judge stand-in modules with the real
 * table; the real rules use {@link #ROOT}.
 */
final class Modules {
  /** Where Bothy's modules live. */
  static final String ROOT = "dev.bothy";

  /** The module that composes the others; it may use everything and nothing may use it. */
  static final String WIRE = "wire";

  /** The module every other may use, subpackages included: {@code kernel.txn} is part of it. */
  static final String KERNEL = "kernel";

  /**
   * The jOOQ generated types. Not a module of the table but generated code; which packages may use
   * it is the business of the generated-types rule, so it is listed here only as a target.
   */
  static final String GENERATED = "db";

  private static final Set<String> PLATFORM =
      Set.of("platform.pg", "platform.jobs", "platform.lifecycle", "platform.telemetry");

  /**
   * The "may use" column of DESIGN.md section 4, between Bothy's own modules (third-party libraries
   * are the other rules' business). {@code platform} in the table stands for every platform module;
   * {@code GENERATED} is added where a module owns tables and so has an {@code adapters.postgres},
   * and for {@code platform.pg}, whose row names it.
   *
   * <p>Two rows differ from the table, because the table has not caught up with the code: {@code
   * api} owns {@code api_idempotency_keys}, so its store uses {@code platform.pg} ({@code PgTx})
   * and the generated types, and its cleaner is a job kind of {@code platform.jobs}; the table says
   * "kernel, sync ports". {@code platform.jobs} owns the {@code jobs} table, and since ADR 0013 its
   * {@code JobStore} uses the generated types, which section 4 allows in {@code platform.*}, and
   * since ADR 0014 its wiring entry {@code JobsModule} registers the workers' start and stop with
   * {@code platform.lifecycle}; the table says "kernel, platform.pg". {@code platform.pg} runs its
   * {@code Listener} on the loop primitive {@code ServiceLoop} of {@code platform.lifecycle}, as
   * DESIGN.md section 4 asks of every background loop. Both run their loops' polls outside the
   * recorded traces through {@code platform.telemetry}'s {@code TraceContext}. docs/architecture.md
   * lists the rows as they are.
   */
  static final Map<String, Set<String>> MAY_USE = mayUse();

  private final String root;

  /**
   * Judges classes under a root.
   *
   * @param root the package whose subpackages are the modules
   */
  Modules(String root) {
    this.root = root;
  }

  /**
   * Returns the module of a class, empty when the class lies outside the root. A class directly in
   * the root package belongs to the module {@code ""}, which has no row.
   */
  Optional<String> moduleOf(JavaClass javaClass) {
    String pkg = javaClass.getBaseComponentType().getPackageName();
    if (pkg.equals(root)) {
      return Optional.of("");
    }
    if (!pkg.startsWith(root + ".")) {
      return Optional.empty();
    }
    String[] parts = pkg.substring(root.length() + 1).split("\\.");
    if (parts[0].equals("platform") && parts.length > 1) {
      return Optional.of("platform." + parts[1]);
    }
    return Optional.of(parts[0]);
  }

  /** Tells whether a class sits in the root package of its module, the module's port. */
  boolean inPort(JavaClass javaClass, String module) {
    return javaClass.getBaseComponentType().getPackageName().equals(root + "." + module);
  }

  /** Slices the classes under the root by module, leaving out everything else. */
  SliceAssignment slices() {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
        return moduleOf(javaClass).map(SliceIdentifier::of).orElse(SliceIdentifier.ignore());
      }

      @Override
      public String getDescription() {
        return "the modules of DESIGN.md section 4 under " + root;
      }
    };
  }

  /**
   * The condition that a class uses another module only through its port: the packages below a
   * module's root ({@code app}, {@code domain}, {@code adapters}, {@code runtime}, {@code http},
   * ...) are for the module itself and {@code wire}. The kernel is all port, and the generated
   * types are judged by their own rule.
   */
  ArchCondition<JavaClass> useOtherModulesOnlyThroughTheirPorts() {
    return new ArchCondition<>("use other modules only through their ports") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        Optional<String> from = moduleOf(origin);
        if (from.isEmpty() || from.get().equals(WIRE)) {
          return;
        }
        for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = dependency.getTargetClass();
          Optional<String> to = moduleOf(target);
          if (to.isEmpty()
              || to.get().equals(from.get())
              || to.get().equals(KERNEL)
              || to.get().equals(GENERATED)
              || inPort(target, to.get())) {
            continue;
          }
          events.add(
              SimpleConditionEvent.violated(
                  dependency,
                  dependency.getDescription()
                      + ": "
                      + target.getBaseComponentType().getPackageName()
                      + " is an internal package of module "
                      + to.get()
                      + ", which only "
                      + to.get()
                      + " and wire may use"));
        }
      }
    };
  }

  /**
   * The condition that a class uses only the modules its module's row of {@link #MAY_USE} names,
   * and that its module has a row at all, so a new module cannot slip in without one.
   */
  ArchCondition<JavaClass> useOnlyTheModulesTheirRowAllows() {
    return new ArchCondition<>("use only the modules their row of the DESIGN.md table allows") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        Optional<String> from = moduleOf(origin);
        if (from.isEmpty()) {
          return;
        }
        Set<String> row = MAY_USE.get(from.get());
        if (row == null) {
          events.add(
              SimpleConditionEvent.violated(
                  origin,
                  origin.getName()
                      + " is in module "
                      + from.get()
                      + ", but module "
                      + from.get()
                      + " has no row in the DESIGN.md section 4 table"));
          return;
        }
        for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
          Optional<String> to = moduleOf(dependency.getTargetClass());
          if (to.isEmpty() || to.get().equals(from.get()) || row.contains(to.get())) {
            continue;
          }
          events.add(
              SimpleConditionEvent.violated(
                  dependency,
                  dependency.getDescription()
                      + ": "
                      + from.get()
                      + " may use only "
                      + new TreeSet<>(row)));
        }
      }
    };
  }

  /**
   * The condition that a domain class uses only the JDK ({@code java.*} and {@code javax.crypto},
   * whose HMAC the webhook signature is), the kernel and the domain of its own module. Not even its
   * own module's port: the domain is the innermost ring, and today no domain needs a port record.
   */
  ArchCondition<JavaClass> useOnlyTheJdkTheKernelAndTheirOwnDomain() {
    return new ArchCondition<>(
        "use only java.*, javax.crypto, the kernel and their own module's domain") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        String ownDomain = domainPackageOf(origin.getPackageName());
        for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
          String target = dependency.getTargetClass().getBaseComponentType().getPackageName();
          if (target.startsWith("java.")
              // The JDK's HMAC: pure computation, which the webhook signature rule needs.
              || isIn(target, "javax.crypto")
              || isIn(target, root + "." + KERNEL)
              || isIn(target, ownDomain)) {
            continue;
          }
          events.add(
              SimpleConditionEvent.violated(
                  dependency,
                  dependency.getDescription()
                      + ": a domain uses only java.*, javax.crypto, the kernel and "
                      + ownDomain));
        }
      }
    };
  }

  private static String domainPackageOf(String pkg) {
    int at = pkg.indexOf(".domain.");
    return at < 0 ? pkg : pkg.substring(0, at + ".domain".length());
  }

  private static boolean isIn(String pkg, String parent) {
    return pkg.equals(parent) || pkg.startsWith(parent + ".");
  }

  private static Map<String, Set<String>> mayUse() {
    Set<String> platform = PLATFORM;
    Map<String, Set<String>> rows =
        Map.ofEntries(
            Map.entry(KERNEL, Set.of()),
            Map.entry(GENERATED, Set.of()),
            Map.entry(
                "platform.pg",
                Set.of(KERNEL, GENERATED, "platform.lifecycle", "platform.telemetry")),
            Map.entry(
                "platform.jobs",
                Set.of(
                    KERNEL, GENERATED, "platform.pg", "platform.lifecycle", "platform.telemetry")),
            Map.entry("platform.lifecycle", Set.of(KERNEL)),
            Map.entry("platform.telemetry", Set.of(KERNEL)),
            Map.entry("instance", union(Set.of(KERNEL, GENERATED), platform)),
            Map.entry("sync", union(Set.of(KERNEL, GENERATED, "instance"), platform)),
            Map.entry(
                "api",
                Set.of(
                    KERNEL,
                    GENERATED,
                    "sync",
                    "webhooks",
                    "system",
                    "platform.pg",
                    "platform.jobs")),
            Map.entry("bus", union(Set.of(KERNEL, GENERATED, "sync"), platform)),
            Map.entry("system", union(Set.of(KERNEL, GENERATED, "sync", "bus"), platform)),
            Map.entry("webhooks", union(Set.of(KERNEL, GENERATED, "sync"), platform)),
            Map.entry(
                "console",
                union(
                    Set.of(KERNEL, "instance", "sync", "api", "bus", "system", "webhooks"),
                    platform)));
    Set<String> everything =
        rows.keySet().stream().filter(m -> !m.equals(WIRE)).collect(Collectors.toSet());
    return Stream.concat(rows.entrySet().stream(), Stream.of(Map.entry(WIRE, everything)))
        .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    return Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableSet());
  }
}
