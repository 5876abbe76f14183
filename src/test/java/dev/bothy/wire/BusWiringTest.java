package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.BusModule;
import dev.bothy.bus.Streams;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.nats.client.Connection;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The bus in a process: with {@code bus.nats.url} every role connects at start, declares the {@code
 * EVENTS} stream and closes the connection at stop; an unreachable server stops the start naming
 * the key. Without the key no bus is built (InProcessAppTest).
 */
class BusWiringTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static DropwizardTestSupport<BothyConfiguration> app(Role role, String natsUrl) {
    return new DropwizardTestSupport<>(
        BothyApplication.class,
        (String) null,
        (String) null,
        application -> new RoleCommand(application, role, "test"),
        ConfigOverride.config("database.url", PG::jdbcUrl),
        ConfigOverride.config("bus.nats.url", natsUrl),
        ConfigOverride.config("server.applicationConnectors[0].port", "0"),
        ConfigOverride.config("server.adminConnectors[0].port", "0"));
  }

  @ParameterizedTest
  @EnumSource(Role.class)
  void every_role_with_a_nats_url_connects_declares_the_stream_and_closes_at_stop(Role role)
      throws Exception {
    DropwizardTestSupport<BothyConfiguration> app = app(role, NATS.url());
    app.before();
    Connection connection;
    try {
      BothyApplication application = app.getApplication();
      BusModule bus = application.assembly().bus().orElseThrow();
      connection = bus.connection();
      assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
      assertThat(connection.getServerInfo().isJetStreamAvailable()).isTrue();
      assertThat(bus.management().getStreamInfo(Streams.EVENTS).getConfiguration().getSubjects())
          .containsExactly(Streams.EVENT_SUBJECTS);
    } finally {
      app.after();
    }
    assertThat(connection.getStatus()).isEqualTo(Connection.Status.CLOSED);
  }

  @Test
  void an_unreachable_nats_server_stops_the_start_naming_the_url_key() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    DropwizardTestSupport<BothyConfiguration> app = app(Role.WORKER, "nats://127.0.0.1:" + closed);

    assertThatThrownBy(app::before)
        .hasStackTraceContaining("cannot connect to NATS within bus.nats.connectionTimeout")
        .hasStackTraceContaining("check bus.nats.url");
  }
}
