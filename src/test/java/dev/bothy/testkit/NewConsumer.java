package dev.bothy.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The consumer scaffold (issue 20): {@code bash scripts/new-consumer.sh <module> <name>} writes a
 * bus handler {@code <module>.<name>} with a placeholder event type, its test that fails with "not
 * implemented" until written, its chaos test on the kit, and the registration line in the module's
 * wiring ({@code <Module>Module.busConsumers()}). Nothing is overwritten: a file that exists stops
 * the scaffold before it writes anything.
 *
 * <p>It uses the JDK alone, so the script runs it from its source with {@code java
 * NewConsumer.java} (no build, no Maven); {@code NewConsumerTest} runs it into a temporary copy and
 * compiles what it wrote.
 */
public final class NewConsumer {
  private static final Pattern MODULE = Pattern.compile("[a-z][a-z0-9]*");
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");
  private static final Pattern RETURN_LIST =
      // Statements may come before the return (SystemModule builds its stores first), never a
      // block: the method is a list of declarations.
      Pattern.compile("List<BusConsumer> busConsumers\\(\\)\\s*\\{[^{}]*?return List\\.of\\(");

  /** The files the scaffold wrote or changed, relative to the project's root. */
  public record Written(List<Path> created, Path registeredIn) {}

  private NewConsumer() {}

  /**
   * Runs the scaffold from the command line: {@code [--root DIR] <module> <name>}.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    List<String> rest = new ArrayList<>(List.of(args));
    Path root = Path.of(".");
    if (rest.size() >= 2 && rest.get(0).equals("--root")) {
      root = Path.of(rest.get(1));
      rest = rest.subList(2, rest.size());
    }
    if (rest.size() != 2) {
      System.err.println("usage: bash scripts/new-consumer.sh <module> <name>");
      System.err.println("  for example: bash scripts/new-consumer.sh system beacon");
      System.exit(2);
    }
    try {
      Written written = write(root, rest.get(0), rest.get(1));
      for (Path p : written.created()) {
        System.out.println("wrote " + p);
      }
      System.out.println("registered in " + written.registeredIn());
      System.out.println(
          "next: replace the placeholder event type, write the handler, its test and its chaos"
              + " test's tables (bus README, \"Add a consumer\")");
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("new-consumer: " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * Writes the handler, its test and its chaos test, and registers the handler in the module's
   * wiring.
   *
   * @param root the project's root
   * @param module the module, a package under {@code dev.bothy} with a wiring class {@code
   *     <Module>Module} declaring {@code busConsumers()}
   * @param name the handler's name within the module: {@code <module>.<name>}, durable {@code
   *     <module>_<name>}
   * @return what was written
   * @throws IllegalArgumentException for a bad module or name, or a file that exists
   * @throws IllegalStateException when the module's wiring has no {@code busConsumers()} to add to
   */
  public static Written write(Path root, String module, String name) {
    if (!MODULE.matcher(module).matches()) {
      throw new IllegalArgumentException(
          "the module must be lower case letters and digits, starting with a letter: " + module);
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "the name must be lower case letters, digits and underscores, starting with a letter: "
              + name);
    }
    Path main = root.resolve("src/main/java/dev/bothy").resolve(module);
    Path wiring = main.resolve(capitalized(module) + "Module.java");
    if (!Files.isRegularFile(wiring)) {
      throw new IllegalArgumentException(
          "no module "
              + module
              + " with a wiring class: "
              + root.relativize(wiring)
              + " does not exist");
    }
    String type = camel(name);
    Path handler = main.resolve("app").resolve(type + ".java");
    Path tests = root.resolve("src/test/java/dev/bothy").resolve(module);
    Path test = tests.resolve(type + "Test.java");
    Path chaos = tests.resolve(type + "ChaosTest.java");
    for (Path p : List.of(handler, test, chaos)) {
      if (Files.exists(p)) {
        throw new IllegalArgumentException(root.relativize(p) + " exists; nothing written");
      }
    }
    String wired = register(read(wiring), module, type);
    writeFile(handler, handler(module, name, type));
    writeFile(test, test(module, name, type));
    writeFile(chaos, chaosTest(module, name, type));
    writeFile(wiring, wired);
    return new Written(
        List.of(root.relativize(handler), root.relativize(test), root.relativize(chaos)),
        root.relativize(wiring));
  }

  static String register(String wiring, String module, String type) {
    Matcher m = RETURN_LIST.matcher(wiring);
    if (!m.find()) {
      throw new IllegalStateException(
          "the module's wiring has no busConsumers() that returns List.of(...): add one as"
              + " SystemModule does, register it with one line in"
              + " wire.BusConsumerDeclarations.all(), all.put(\""
              + module
              + "\", ...), then run the scaffold again");
    }
    String entry =
        "\n        new BusConsumer(\n            "
            + type
            + ".DURABLE, List.of(BusHandler.of("
            + type
            + ".NAME, "
            + type
            + ".EVENT, new "
            + type
            + "())))";
    // Another consumer follows: a comma; an empty List.of(): none.
    boolean empty = wiring.substring(m.end()).stripLeading().startsWith(")");
    String registered =
        wiring.substring(0, m.end()) + entry + (empty ? "" : ",") + wiring.substring(m.end());
    List<String> imports = new ArrayList<>();
    imports.add("import dev.bothy." + module + ".app." + type + ";");
    if (!registered.contains("import dev.bothy.bus.BusConsumer;")) {
      imports.add("import dev.bothy.bus.BusConsumer;");
    }
    if (!registered.contains("import dev.bothy.bus.BusHandler;")) {
      imports.add("import dev.bothy.bus.BusHandler;");
    }
    int packageEnd = registered.indexOf(";\n") + 2;
    // After the package line; spotless:apply puts the imports in their order.
    return registered.substring(0, packageEnd)
        + "\n"
        + String.join("\n", imports)
        + registered.substring(packageEnd);
  }

  static String handler(String module, String name, String type) {
    return """
        package dev.bothy.%1$s.app;

        import dev.bothy.bus.BusEvent;
        import dev.bothy.bus.BusHandler;
        import dev.bothy.bus.Tx;
        import dev.bothy.kernel.BothyException;
        import dev.bothy.sync.EventType;
        import dev.bothy.sync.EventTypes;
        import dev.bothy.sync.SettingsUpdated;
        import java.time.Instant;

        /**
         * The bus handler {@code %1$s.%2$s}: say what it does with which event, and why it converges
         * when delivered twice (bus README, "The Dispatch contract").
         *
         * <p>Written by {@code scripts/new-consumer.sh}: {@link #EVENT} is a placeholder. Replace it
         * and the payload type with the event this handler consumes, then write {@link #handle}.
         * Until then it fails every delivery, so no event is marked handled without its effect.
         */
        public final class %3$s implements BusHandler.Function<SettingsUpdated> {
          /** The handler's name, the key of its rows in {@code event_deliveries}. */
          public static final String NAME = "%1$s.%2$s";

          /** The durable of the handler's consumer. */
          public static final String DURABLE = "%1$s_%2$s";

          /** The event type it consumes: a placeholder until replaced. */
          public static final EventType<SettingsUpdated> EVENT = EventTypes.SETTINGS_UPDATED;

          /** Creates the handler; give it the module's stores it writes through. */
          public %3$s() {}

          @Override
          public void handle(Tx tx, BusEvent<SettingsUpdated> event, Instant at) {
            throw BothyException.internal("not implemented: the bus handler " + NAME);
          }
        }
        """
        .formatted(module, name, type);
  }

  static String test(String module, String name, String type) {
    return """
        package dev.bothy.%1$s;

        import static org.junit.jupiter.api.Assertions.fail;

        import org.junit.jupiter.api.Test;

        /** The bus handler {@code %1$s.%2$s} on real PostgreSQL. */
        class %3$sTest {
          @Test
          void the_handler_writes_its_effect_once_and_converges_on_redelivery() {
            fail(
                "not implemented: dispatch the handler's event to %1$s.%2$s and assert the end"
                    + " state, a redelivery and a failure (bus README, Add a consumer)");
          }
        }
        """
        .formatted(module, name, type);
  }

  static String chaosTest(String module, String name, String type) {
    return """
        package dev.bothy.%1$s;

        import dev.bothy.bus.BusConsumer;
        import dev.bothy.bus.BusHandler;
        import dev.bothy.%1$s.app.%3$s;
        import dev.bothy.sync.EventDraft;
        import dev.bothy.sync.ResourceRef;
        import dev.bothy.sync.SettingsUpdated;
        import dev.bothy.testing.NatsServer;
        import dev.bothy.testing.PgExtension;
        import dev.bothy.testkit.BusTransport;
        import dev.bothy.testkit.ChaosConsumer;
        import dev.bothy.testkit.ChaosSuite;
        import dev.bothy.testkit.Script;
        import java.util.List;
        import java.util.Optional;
        import org.junit.jupiter.api.Test;
        import org.junit.jupiter.api.extension.RegisterExtension;

        /**
         * The bus handler {@code %1$s.%2$s} under the chaos suite on both transports (testkit
         * README): the same end state under redelivery, reordering, crashes, a NATS restart, a relay
         * kill and a terminated backend as in a clean run.
         */
        class %3$sChaosTest {
          @RegisterExtension static final PgExtension PG = new PgExtension();
          @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

          private static ChaosSuite suite() {
            ChaosConsumer consumer =
                ChaosConsumer.of(
                    "%1$s",
                    context ->
                        List.of(
                            new BusConsumer(
                                %3$s.DURABLE,
                                List.of(BusHandler.of(%3$s.NAME, %3$s.EVENT, new %3$s())))),
                    // The tables the handler writes; the suite refuses a consumer without one.
                    List.of(),
                    // Their rows as sorted lines, without random ids or wall-clock times.
                    owner -> List.of());
            // What the handler expects to find, then its event, once per step.
            Script script =
                Script.of(
                    12,
                    (i, ctx) ->
                        ctx.append(
                            new EventDraft(
                                %3$s.EVENT.name(),
                                new ResourceRef("user", ctx.id("user " + i)),
                                Optional.empty(),
                                new SettingsUpdated(List.of("key " + i)))));
            return ChaosSuite.of(consumer, script);
          }

          @Test
          void converges_under_every_fault_on_the_log_transport() {
            suite().run(BusTransport.LOG, PG, NATS).assertConverged();
          }

          @Test
          void converges_under_every_fault_on_the_nats_transport() {
            suite().run(BusTransport.NATS, PG, NATS).assertConverged();
          }
        }
        """
        .formatted(module, name, type);
  }

  private static String capitalized(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  static String camel(String name) {
    StringBuilder out = new StringBuilder();
    for (String part : name.split("_")) {
      if (!part.isEmpty()) {
        out.append(capitalized(part));
      }
    }
    return out.toString();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeFile(Path p, String text) {
    try {
      Files.createDirectories(p.getParent());
      Files.writeString(p, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
