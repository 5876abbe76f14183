package dev.bothy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The nats-server harness: a loopback JetStream server that a test kills and restarts. */
class NatsServerTest {
  @Test
  void a_killed_server_restarts_on_the_same_port_with_its_store() throws Exception {
    try (NatsServer server = NatsServer.jetStream().monitoring()) {
      server.start();
      assertThat(server.port()).isNotEqualTo(4222);
      assertThat(server.url()).isEqualTo("nats://127.0.0.1:" + server.port());
      Connection c = Nats.connect(server.url());
      try {
        JetStreamManagement jsm = c.jetStreamManagement();
        jsm.addStream(
            StreamConfiguration.builder()
                .name("KEPT")
                .subjects("kept.>")
                .storageType(StorageType.File)
                .build());
        c.jetStream().publish("kept.one", "alex".getBytes(StandardCharsets.UTF_8));
      } finally {
        c.close();
      }
      long firstPid = server.pid();
      int port = server.port();

      server.kill();
      assertThat(server.running()).isFalse();
      assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      server.restart();

      assertThat(server.port()).isEqualTo(port);
      assertThat(server.pid()).isNotEqualTo(firstPid);
      Connection again = Nats.connect(server.url());
      try {
        assertThat(again.jetStreamManagement().getStreamInfo("KEPT").getStreamState().getMsgCount())
            .isEqualTo(1);
      } finally {
        again.close();
      }
      assertThat(server.monitorPort()).isPositive();
    }
  }

  @Test
  void a_token_server_refuses_clients_without_it_and_a_small_max_payload_shows() throws Exception {
    try (NatsServer server = NatsServer.jetStream().token("sam-token-31").maxPayload(2048)) {
      server.start();
      assertThatThrownBy(() -> Nats.connect(new Options.Builder().server(server.url()).build()))
          .isInstanceOf(IOException.class);
      Connection c =
          Nats.connect(
              new Options.Builder()
                  .server(server.url())
                  .token("sam-token-31".toCharArray())
                  .build());
      try {
        assertThat(c.getServerInfo().getMaxPayload()).isEqualTo(2048);
      } finally {
        c.close();
      }
      server.stop();
      assertThat(server.running()).isFalse();
    }
  }
}
