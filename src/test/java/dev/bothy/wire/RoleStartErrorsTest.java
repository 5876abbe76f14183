package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.PgExtension;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A role that cannot start says why in a last line that names the key to change. */
class RoleStartErrorsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir Path dir;

  @Test
  void a_taken_port_ends_the_start_naming_the_connector_keys() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThat(lastLineOfAFailedStart("api", PG.jdbcUrl(), taken.getLocalPort()))
          .startsWith("api: cannot listen on")
          .contains(String.valueOf(taken.getLocalPort()))
          .contains("server.applicationConnectors");
    }
  }

  @Test
  void a_taken_port_ends_the_start_before_the_database_opens_without_a_stack_trace()
      throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // No server listens on port 1: reaching the database first would fail on it instead.
      Result failed =
          failedStart(
              "all",
              "jdbc:postgresql://127.0.0.1:1/bothy\n  password: robin-pw",
              taken.getLocalPort());
      assertThat(failed.lastLine())
          .startsWith("all: cannot listen on 127.0.0.1:" + taken.getLocalPort())
          .contains("server.applicationConnectors[0]");
      assertThat(failed.output()).doesNotContain("\tat ").doesNotContain("cannot connect");
    }
  }

  @Test
  void a_database_never_migrated_ends_the_start_in_one_line_saying_run_db_migrate()
      throws Exception {
    assertThat(lastLineOfAFailedStart("worker", PG.createEmptyDatabase("bothy_owner"), 0))
        .isEqualTo(
            "worker: the database has no instance record, so db migrate never ran on it: run"
                + " db migrate");
  }

  /** Starts the role in a child JVM, expects it to fail, and returns its output's last line. */
  private String lastLineOfAFailedStart(String role, String databaseUrl, int port)
      throws Exception {
    return failedStart(role, databaseUrl, port).lastLine();
  }

  /** A failed start's whole output and its last line. */
  private record Result(String output, String lastLine) {}

  private Result failedStart(String role, String databaseUrl, int port) throws Exception {
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        "database:\n  url: "
            + databaseUrl
            + "\nserver:\n  applicationConnectors:\n    - type: http\n      bindHost: 127.0.0.1\n"
            + "      port: "
            + port
            + "\n  adminConnectors:\n    - type: http\n      port: 0\n");
    try (ChildJvm child =
        ChildJvm.start(
            BothyApplication.class.getName(), dir, List.of(), Map.of(), role, config.toString())) {
      ChildJvm.Result result = child.await(Duration.ofSeconds(90));

      assertThat(result.exitCode()).isNotZero();
      String output = result.output().strip();
      return new Result(output, output.substring(output.lastIndexOf('\n') + 1));
    }
  }
}
