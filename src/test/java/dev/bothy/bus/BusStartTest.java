package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bus's start on real nats-servers: the start fails clearly (naming the key, never a secret) on
 * an unreachable server, a refused token, a server whose max_payload is below the append limit, and
 * a missing stream while Bothy may not manage streams.
 */
class BusStartTest {
  private static final String TOKEN = "robin-token-7f3a";

  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  @RegisterExtension static final NatsServer GUARDED = NatsServer.jetStream().token(TOKEN);

  @RegisterExtension static final NatsServer SMALL = NatsServer.jetStream().maxPayload(32 * 1024);

  @RegisterExtension static final NatsServer CORE = NatsServer.withoutJetStream();

  @Test
  void an_unreachable_server_fails_the_start_within_the_timeout_naming_the_url_key()
      throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    BusModule bus =
        new BusModule(BusSettings.of("nats://127.0.0.1:" + closed, new Credential.None(), true));
    long began = System.nanoTime();

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("bus.nats.url")
        .hasMessageContaining("bus.nats.connectionTimeout")
        .hasMessageNotContaining(Integer.toString(closed))
        .satisfies(e -> assertThat(((BothyException) e).kind()).isEqualTo(ErrorKind.UNAVAILABLE));
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .isLessThan(BusSettings.CONNECTION_TIMEOUT.plusSeconds(5));
  }

  @Test
  void the_stream_is_marked_as_the_installations_and_another_installation_is_refused()
      throws Exception {
    UUID alex = UUID.fromString("0190a8f0-0000-7000-8000-00000000a1e7");
    UUID sam = UUID.fromString("0190a8f0-0000-7000-8000-000000005a77");
    BusModule first = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    first.connect(Optional.of(alex));
    first.close();
    BusModule again = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    again.connect(Optional.of(alex));
    again.close();

    BusModule other = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    assertThatThrownBy(() -> other.connect(Optional.of(sam)))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("another Bothy installation")
        .hasMessageContaining(alex.toString())
        .hasMessageContaining("bus.nats.url")
        .satisfies(e -> assertThat(((BothyException) e).kind()).isEqualTo(ErrorKind.INVALID));
  }

  @Test
  void a_wrong_token_fails_the_start_naming_the_token_key_and_never_the_token() {
    BusModule bus =
        new BusModule(
            BusSettings.of(GUARDED.url(), new Credential.Token("sam-wrong-token-1c9e"), true));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("refused the credential of bus.nats.token")
        .hasMessageNotContaining("sam-wrong-token-1c9e")
        .hasMessageNotContaining(TOKEN)
        .satisfies(e -> assertThat(String.valueOf(e.getCause())).doesNotContain("sam-wrong"));
  }

  @Test
  void a_missing_credentials_file_fails_the_start_naming_its_key() {
    BusModule bus =
        new BusModule(
            BusSettings.of(
                NATS.url(),
                new Credential.CredsFile(java.nio.file.Path.of("target/no-such-robin.creds")),
                true));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("bus.nats.credsFile names a file that does not exist")
        .hasMessageNotContaining("no-such-robin");
  }

  @Test
  void a_token_never_shows_in_the_settings_text() {
    assertThat(BusSettings.of(NATS.url(), new Credential.Token("alex-token-55"), true).toString())
        .contains("bus.nats.token")
        .doesNotContain("alex-token-55");
  }

  @Test
  void a_server_without_jetstream_fails_the_start_naming_the_url_key() {
    BusModule bus = new BusModule(BusSettings.of(CORE.url(), new Credential.None(), true));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("the NATS server of bus.nats.url has no JetStream");
  }

  @Test
  void the_right_token_connects() throws Exception {
    BusModule bus = new BusModule(BusSettings.of(GUARDED.url(), new Credential.Token(TOKEN), true));
    bus.connect();
    try {
      assertThat(bus.connection().getStatus()).isEqualTo(Connection.Status.CONNECTED);
      assertThat(bus.management().getStreamNames()).contains(Streams.EVENTS);
    } finally {
      bus.close();
    }
  }

  @Test
  void a_max_payload_below_the_append_limit_fails_the_start_naming_both_values_and_keys() {
    // The default sync.maxPayloadBytes, 64 KiB, and the header room do not fit in 32 KiB.
    BusModule bus = new BusModule(BusSettings.of(SMALL.url(), new Credential.None(), true));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("sync.maxPayloadBytes (65536)")
        .hasMessageContaining("max_payload (32768 bytes)")
        .hasMessageContaining("header room (" + Streams.HEADER_ROOM_BYTES + ")");
  }

  @Test
  void a_payload_limit_that_fits_a_small_max_payload_starts() throws Exception {
    BusModule bus =
        new BusModule(
            new BusModule.Settings(
                BusSettings.nats(SMALL.url(), new Credential.None()),
                new StreamSettings(
                    true,
                    1,
                    Duration.ofDays(30),
                    Duration.ofMinutes(5),
                    32 * 1024 - Streams.HEADER_ROOM_BYTES),
                BusSettings.RELAY));
    bus.connect();
    try {
      assertThat(
              bus.management()
                  .getStreamInfo(Streams.EVENTS)
                  .getConfiguration()
                  .getMaximumMessageSize())
          .isEqualTo(32 * 1024);
    } finally {
      bus.close();
    }
  }

  @Test
  void a_missing_stream_fails_the_start_when_bothy_may_not_manage_streams() throws Exception {
    Connection admin = Nats.connect(new Options.Builder().server(NATS.url()).build());
    try {
      JetStreamManagement jsm = admin.jetStreamManagement();
      if (jsm.getStreamNames().contains(Streams.EVENTS)) {
        jsm.deleteStream(Streams.EVENTS);
      }
    } finally {
      admin.close();
    }
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), false));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("stream EVENTS does not exist")
        .hasMessageContaining("bus.nats.manageStreams is false");
  }

  @Test
  void connection_and_contexts_are_refused_before_the_start_step() {
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));

    assertThatThrownBy(bus::connection).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(bus::jetStream).isInstanceOf(IllegalStateException.class);
  }
}
