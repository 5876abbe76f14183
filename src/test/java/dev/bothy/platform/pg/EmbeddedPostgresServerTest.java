package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedPostgresServerTest {
  @TempDir Path dir;

  @Test
  void a_taken_port_fails_with_a_message_naming_the_key() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  EmbeddedPostgresServer.start(
                      dir.resolve("data"), taken.getLocalPort(), Duration.ofSeconds(30)))
          .isInstanceOfSatisfying(
              BothyException.class,
              e ->
                  org.assertj.core.api.Assertions.assertThat(e.kind())
                      .isEqualTo(ErrorKind.UNAVAILABLE))
          .hasMessageContaining("port " + taken.getLocalPort())
          .hasMessageContaining("database.embedded.port");
    }
  }

  @Test
  void a_data_directory_held_by_another_owner_fails_with_a_message_naming_the_key()
      throws Exception {
    Path data = dir.resolve("data");
    try (FileChannel holder =
        FileChannel.open(
            dir.resolve("data.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      holder.lock();
      assertThatThrownBy(() -> EmbeddedPostgresServer.start(data, 0, Duration.ofSeconds(30)))
          .isInstanceOf(BothyException.class)
          .hasMessageContaining("is in use by another process")
          .hasMessageContaining("database.embedded.dataDirectory");
    }
  }
}
