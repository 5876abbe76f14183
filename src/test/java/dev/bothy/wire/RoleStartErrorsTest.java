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
      Path config = dir.resolve("config.yml");
      Files.writeString(
          config,
          "database:\n  url: "
              + PG.jdbcUrl()
              + "\nserver:\n  applicationConnectors:\n    - type: http\n      bindHost: 127.0.0.1\n"
              + "      port: "
              + taken.getLocalPort()
              + "\n  adminConnectors:\n    - type: http\n      port: 0\n");

      try (ChildJvm child =
          ChildJvm.start(
              BothyApplication.class.getName(),
              dir,
              List.of(),
              Map.of(),
              "api",
              config.toString())) {
        ChildJvm.Result result = child.await(Duration.ofSeconds(90));

        assertThat(result.exitCode()).isNotZero();
        String last = result.output().strip();
        last = last.substring(last.lastIndexOf('\n') + 1);
        assertThat(last)
            .startsWith("api: cannot listen on")
            .contains(String.valueOf(taken.getLocalPort()))
            .contains("server.applicationConnectors");
      }
    }
  }
}
