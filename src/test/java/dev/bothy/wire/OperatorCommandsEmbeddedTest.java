package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.platform.pg.EmbeddedPostgresServer;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator commands on the embedded default with no server running: each starts its own
 * embedded PostgreSQL and stops it before it returns, so the process exits at once instead of
 * waiting for the shutdown hook's timeout (which took about 30 s).
 */
class OperatorCommandsEmbeddedTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"jobs list", "bus dead list", "bus replay system_echoes"})
  void stops_its_embedded_postgresql_before_it_returns(String command) throws Exception {
    Path data = dir.resolve("postgres");
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        "database:\n  embedded:\n    dataDirectory: " + data + "\n    port: " + freePort() + "\n");
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.add(config.toString());

    CommandLine.Outcome outcome = CommandLine.run(args.toArray(String[]::new));

    assertThat(outcome.failure()).isEmpty();
    assertThat(EmbeddedPostgresServer.inUse(data))
        .as("the embedded PostgreSQL of %s is still running after it returned", command)
        .isFalse();
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
