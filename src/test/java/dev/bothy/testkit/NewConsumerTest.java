package dev.bothy.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer scaffold run into a temporary copy of the sources it needs (the module's wiring),
 * its output compiled with {@code javax.tools} against the test classpath (no nested build), and
 * the generated test run: it fails with "not implemented" until written. The documented command,
 * {@code scripts/new-consumer.sh}, runs once the same way.
 */
class NewConsumerTest {
  private static final Path PROJECT =
      Path.of(System.getProperty("bothy.test.projectDir", ".")).toAbsolutePath().normalize();
  private static final String WIRING = "src/main/java/dev/bothy/system/SystemModule.java";

  @TempDir Path root;

  private void copy(String relative) throws IOException {
    Path target = root.resolve(relative);
    Files.createDirectories(target.getParent());
    Files.copy(PROJECT.resolve(relative), target);
  }

  @Test
  void the_output_compiles_and_its_test_fails_with_not_implemented() throws Exception {
    copy(WIRING);

    NewConsumer.Written written = NewConsumer.write(root, "system", "beacon_sent");

    assertThat(written.created())
        .extracting(Path::toString)
        .containsExactly(
            "src/main/java/dev/bothy/system/app/BeaconSent.java",
            "src/test/java/dev/bothy/system/BeaconSentTest.java",
            "src/test/java/dev/bothy/system/BeaconSentChaosTest.java");
    assertThat(written.registeredIn()).hasToString(WIRING);
    String wiring = Files.readString(root.resolve(WIRING));
    assertThat(wiring)
        .contains("import dev.bothy.system.app.BeaconSent;")
        .contains(
            "new BusConsumer(\n            BeaconSent.DURABLE, List.of(BusHandler.of(BeaconSent.NAME,"
                + " BeaconSent.EVENT, new BeaconSent()))),\n        new BusConsumer(\n"
                + "            ECHO_DURABLE");

    List<Path> sources = new ArrayList<>();
    for (Path p : written.created()) {
      sources.add(root.resolve(p));
    }
    sources.add(root.resolve(WIRING));
    Path classes = root.resolve("classes");
    compile(sources, classes);

    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> handler = loader.loadClass("dev.bothy.system.app.BeaconSent");
      assertThat(handler.getField("NAME").get(null)).isEqualTo("system.beacon_sent");
      assertThat(handler.getField("DURABLE").get(null)).isEqualTo("system_beacon_sent");

      Class<?> test = loader.loadClass("dev.bothy.system.BeaconSentTest");
      Constructor<?> constructor = test.getDeclaredConstructor();
      constructor.setAccessible(true);
      Method method =
          test.getDeclaredMethod("the_handler_writes_its_effect_once_and_converges_on_redelivery");
      method.setAccessible(true);
      Object instance = constructor.newInstance();
      assertThatThrownBy(() -> method.invoke(instance))
          .isInstanceOf(InvocationTargetException.class)
          .cause()
          .isInstanceOf(AssertionError.class)
          .hasMessageStartingWith("not implemented: dispatch the handler's event to");
    }
  }

  @Test
  void the_documented_command_writes_into_the_project_it_lives_in() throws Exception {
    copy(WIRING);
    copy("scripts/new-consumer.sh");
    copy("src/test/java/dev/bothy/testkit/NewConsumer.java");

    Process p =
        new ProcessBuilder(
                "bash", root.resolve("scripts/new-consumer.sh").toString(), "system", "x1")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the scaffold ended").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("wrote src/main/java/dev/bothy/system/app/X1.java")
        .contains("registered in " + WIRING);
    assertThat(root.resolve("src/test/java/dev/bothy/system/X1ChaosTest.java")).exists();
  }

  @Test
  void it_refuses_bad_names_an_existing_file_and_a_module_without_bus_consumers()
      throws IOException {
    copy(WIRING);
    Path probe = root.resolve("src/main/java/dev/bothy/probe/ProbeModule.java");
    Files.createDirectories(probe.getParent());
    Files.writeString(probe, "package dev.bothy.probe;\n\npublic final class ProbeModule {}\n");

    assertThatThrownBy(() -> NewConsumer.write(root, "System", "beacon"))
        .hasMessageContaining("the module must be lower case");
    assertThatThrownBy(() -> NewConsumer.write(root, "system", "beacon-sent"))
        .hasMessageContaining("the name must be lower case");
    assertThatThrownBy(() -> NewConsumer.write(root, "nomodule", "beacon"))
        .hasMessageContaining("no module nomodule with a wiring class");
    assertThatThrownBy(() -> NewConsumer.write(root, "probe", "beacon"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no busConsumers() that returns List.of(...)");
    assertThat(root.resolve("src/main/java/dev/bothy/probe/app")).doesNotExist();

    NewConsumer.write(root, "system", "beacon");
    String once = Files.readString(root.resolve(WIRING));
    assertThatThrownBy(() -> NewConsumer.write(root, "system", "beacon"))
        .hasMessage("src/main/java/dev/bothy/system/app/Beacon.java exists; nothing written");
    assertThat(Files.readString(root.resolve(WIRING))).isEqualTo(once);
  }

  @Test
  void an_empty_list_of_consumers_gets_the_entry_without_a_comma() {
    String wiring =
        "package dev.bothy.probe;\n\nimport java.util.List;\n\npublic final class ProbeModule {\n"
            + "  public List<BusConsumer> busConsumers() {\n    return List.of();\n  }\n}\n";

    String registered = NewConsumer.register(wiring, "probe", "Beacon");

    assertThat(registered)
        .contains("new Beacon()))));")
        .contains("import dev.bothy.bus.BusConsumer;")
        .contains("import dev.bothy.bus.BusHandler;")
        .contains("import dev.bothy.probe.app.Beacon;");
  }

  private static void compile(List<Path> sources, Path classes) throws IOException {
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      boolean ok =
          javac
              .getTask(
                  null,
                  files,
                  diagnostics,
                  List.of(
                      "-classpath",
                      System.getProperty("java.class.path"),
                      "-d",
                      classes.toString(),
                      "-proc:none",
                      "-Xlint:all",
                      "-Werror"),
                  null,
                  files.getJavaFileObjectsFromPaths(sources))
              .call();
      assertThat(ok)
          .as(
              diagnostics.getDiagnostics().stream()
                  .filter(d -> d.getKind() != Diagnostic.Kind.NOTE)
                  .map(d -> d.getSource() + ":" + d.getLineNumber() + " " + d.getMessage(null))
                  .collect(Collectors.joining("\n")))
          .isTrue();
    }
  }
}
