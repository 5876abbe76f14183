package dev.bothy.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a class of the test classpath in a child JVM, the way a user runs the jar: its own process,
 * working directory, exit code and output. The child inherits the JaCoCo agent of the test JVM, so
 * its coverage counts.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path output;

  private ChildJvm(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  /** The end of a child JVM. */
  public record Result(int exitCode, String output) {}

  /**
   * Runs a main class to its end.
   *
   * @param mainClass the class
   * @param timeout the longest it may run; it is killed after
   * @param args its arguments
   * @return exit code and combined output
   * @throws Exception when it cannot start or overruns
   */
  public static Result run(String mainClass, Duration timeout, String... args) throws Exception {
    try (ChildJvm child = start(mainClass, null, List.of(), Map.of(), args)) {
      return child.await(timeout);
    }
  }

  /**
   * Starts a main class.
   *
   * @param mainClass the class
   * @param workingDirectory its working directory, or null for the test's
   * @param jvmArgs extra JVM arguments, such as {@code -Ddw.server...}
   * @param env extra environment variables
   * @param args its arguments
   * @return the running child; close it to end it
   * @throws IOException when it cannot start
   */
  public static ChildJvm start(
      String mainClass,
      Path workingDirectory,
      List<String> jvmArgs,
      Map<String, String> env,
      String... args)
      throws IOException {
    return launchClass(mainClass, workingDirectory, jvmArgs, env, true, args);
  }

  /**
   * Starts a class like {@link #start}, without the coverage agent the build passes to child JVMs:
   * for tests that restart a process many times, where the agent's start-up cost dominates and the
   * code is covered elsewhere.
   *
   * @param mainClass the class with the main method
   * @param workingDirectory its working directory
   * @param jvmArgs extra JVM arguments
   * @param env extra environment variables
   * @param args its arguments
   * @return the running child; close it to end it
   * @throws IOException when it cannot start
   */
  public static ChildJvm startUncovered(
      String mainClass,
      Path workingDirectory,
      List<String> jvmArgs,
      Map<String, String> env,
      String... args)
      throws IOException {
    return launchClass(mainClass, workingDirectory, jvmArgs, env, false, args);
  }

  /**
   * Starts the shaded jar, {@code java -jar target/bothy.jar ...}, exactly as a user does.
   *
   * @param workingDirectory its working directory
   * @param jvmArgs extra JVM arguments, such as {@code -Ddw.server...}
   * @param args the command and its arguments
   * @return the running child; close it to end it
   * @throws IOException when it cannot start
   */
  public static ChildJvm startJar(Path workingDirectory, List<String> jvmArgs, String... args)
      throws IOException {
    Path jar = Path.of(System.getProperty("bothy.test.jar", "target/bothy.jar")).toAbsolutePath();
    if (!jar.toFile().isFile()) {
      throw new IllegalStateException(jar + " is missing: run the integration tests after package");
    }
    return launch(List.of("-jar", jar.toString()), workingDirectory, jvmArgs, Map.of(), true, args);
  }

  private static ChildJvm launchClass(
      String mainClass,
      Path workingDirectory,
      List<String> jvmArgs,
      Map<String, String> env,
      boolean coverage,
      String... args)
      throws IOException {
    // A test main is started again and again (ConsumerCrashTest restarts a worker 20 times) and
    // lives seconds: the C1 compiler alone starts it sooner, and no test measures its speed.
    return launch(
        List.of("-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass),
        workingDirectory,
        jvmArgs,
        env,
        coverage,
        args);
  }

  private static ChildJvm launch(
      List<String> what,
      Path workingDirectory,
      List<String> jvmArgs,
      Map<String, String> env,
      boolean coverage,
      String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String agent = coverage ? System.getProperty("bothy.test.childJvmArgs", "").trim() : "";
    if (!agent.isEmpty()) {
      command.add(agent);
    }
    command.add("-Dliquibase.analytics.enabled=false");
    command.addAll(jvmArgs);
    command.addAll(what);
    command.addAll(List.of(args));
    Path output = Files.createTempFile("bothy-child", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    if (workingDirectory != null) {
      builder.directory(workingDirectory.toFile());
    }
    builder.environment().putAll(env);
    return new ChildJvm(builder.start(), output);
  }

  /**
   * Returns the process.
   *
   * @return the process
   */
  public Process process() {
    return process;
  }

  /**
   * Returns what the child printed so far.
   *
   * @return stdout and stderr, interleaved
   */
  public String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits for the end of the child.
   *
   * @param timeout the longest wait; the child is killed after it
   * @return exit code and output
   * @throws Exception when the child overruns
   */
  public Result await(Duration timeout) throws Exception {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("child JVM overran " + timeout + ":\n" + output());
    }
    return new Result(process.exitValue(), output());
  }

  /**
   * Sends SIGTERM and waits for the end.
   *
   * @param timeout the longest wait
   * @return exit code and output
   * @throws Exception when the child overruns
   */
  public Result terminate(Duration timeout) throws Exception {
    process.destroy();
    return await(timeout);
  }

  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Files.deleteIfExists(output);
  }
}
