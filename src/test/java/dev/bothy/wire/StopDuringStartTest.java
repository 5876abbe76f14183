package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.PgExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM while the process is still starting (its start steps run, Jetty not started yet): Jetty's
 * own shutdown hook stops only a started server, so without Bothy's exit hook such a process ran no
 * stop phase at all and its exit waited out the whole exit grace. The stop must wait for the start
 * to end and then run every stop phase, well within the grace.
 */
class StopDuringStartTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration START = Duration.ofSeconds(60);
  // Long enough that waiting it out cannot pass for an orderly stop.
  private static final Duration TOTAL_TIMEOUT = Duration.ofSeconds(40);

  @TempDir Path dir;

  @Test
  void sigtermDuringTheStartStopsEveryPhaseAfterTheStart() throws Exception {
    Path config = dir.resolve("worker.yml");
    Files.writeString(
        config,
        "database:\n  url: "
            + PG.jdbcUrl()
            + "\nshutdown:\n  totalTimeout: "
            + TOTAL_TIMEOUT.toSeconds()
            + "s\nserver:\n  shutdownGracePeriod: 1s\n  adminConnectors:\n"
            + "    - type: http\n      port: 0\n");
    try (ChildJvm worker =
        ChildJvm.startUncovered(
            HeldStartWorker.class.getName(),
            dir,
            List.of("-Dbothy.test.holdStart=4000"),
            Map.of(),
            "worker",
            config.toString())) {
      long deadline = System.nanoTime() + START.toNanos();
      while (!worker.output().contains(HeldStartWorker.HELD)) {
        if (!worker.process().isAlive() || System.nanoTime() > deadline) {
          throw new AssertionError("the worker did not reach the held step:\n" + worker.output());
        }
        Thread.sleep(20);
      }
      assertThat(worker.output()).doesNotContain("org.eclipse.jetty.server.Server: Started");

      long sent = System.nanoTime();
      ChildJvm.Result stopped = worker.terminate(TOTAL_TIMEOUT.plus(Duration.ofSeconds(30)));
      Duration took = Duration.ofNanos(System.nanoTime() - sent);

      assertThat(stopped.output())
          .contains("start step done: step=test_hold")
          .contains("stop step done: phase=consumers")
          .contains("stop step done: phase=pool step=pool");
      // The hold is 4 s and the stop of an idle worker takes a few seconds more; waiting out the
      // exit grace (shutdown.totalTimeout plus the grace period) would take over 40 s.
      assertThat(took).isLessThan(TOTAL_TIMEOUT.minus(Duration.ofSeconds(10)));
    }
  }
}
