package dev.bothy.wire;

import dev.bothy.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The child worker processes of the crash tests: {@link ProbeWorker} in the {@code worker} role,
 * configured, started and awaited the same way in each test.
 */
final class ProbeWorkers {
  private ProbeWorkers() {}

  /**
   * Writes a worker's configuration: the database, small consumer rounds that poll often, and an
   * admin port picked by the system.
   *
   * @param dir where to write it
   * @param name the file's name, without {@code .yml}
   * @param jdbcUrl the database
   * @param extraYaml more top-level sections, each line ending with a line break, or empty
   * @return the file
   * @throws Exception when it cannot be written
   */
  static Path config(Path dir, String name, String jdbcUrl, String extraYaml) throws Exception {
    Path file = dir.resolve(name + ".yml");
    Files.writeString(
        file,
        "database:\n  url: "
            + jdbcUrl
            + "\nconsumer:\n  batchSize: 5\n  pollInterval: 100ms\n"
            + extraYaml
            // Port 0: many restarts bind the admin port again and again, and a port picked once
            // as free may be taken by then; nothing here reads the admin port.
            + "server:\n  adminConnectors:\n    - type: http\n      port: 0\n");
    return file;
  }

  /**
   * Starts a worker without the coverage agent: the crash tests restart workers many times, the
   * agent would triple each start, and the code is covered by the in-process tests.
   *
   * @param dir its working directory
   * @param config its configuration
   * @return the running worker
   * @throws Exception when it cannot start
   */
  static ChildJvm start(Path dir, Path config) throws Exception {
    return ChildJvm.startUncovered(
        ProbeWorker.class.getName(), dir, List.of(), Map.of(), "worker", config.toString());
  }

  /**
   * Waits until the worker has started its consumers and Jetty: the whole start, so the test's
   * faults hit a running worker and not its start.
   *
   * @param worker the worker
   * @param timeout the longest wait
   * @throws Exception when it ends or overruns first, with its output
   */
  static void awaitStarted(ChildJvm worker, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!worker.output().contains("start step done: step=event_consumers")
        || !worker.output().contains("org.eclipse.jetty.server.Server: Started")) {
      if (!worker.process().isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("the worker did not start its consumers:\n" + worker.output());
      }
      Thread.sleep(50);
    }
  }
}
