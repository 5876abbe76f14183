package dev.bothy.bus.adapters.nats;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bothy.bus.Credential;
import dev.bothy.bus.NatsSettings;
import dev.bothy.testing.CapturedLog;
import dev.bothy.testing.NatsServer;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The connection outlives its server: killed with SIGKILL and restarted on the same port, the
 * server gets the connection back by itself, and the log says so once per change.
 */
class NatsReconnectTest {
  private static final Duration AWAIT = Duration.ofSeconds(30);

  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  @Test
  void a_killed_and_restarted_server_gets_the_connection_back_with_one_line_per_change()
      throws Exception {
    NatsSettings settings =
        new NatsSettings(
            NATS.url(),
            new Credential.None(),
            Duration.ofSeconds(2),
            Duration.ofMillis(20),
            Duration.ofMillis(200),
            "bothy-test-reconnect");
    try (CapturedLog log = CapturedLog.of(ConnectionLog.class)) {
      Connection connection = NatsConnections.open(settings);
      try {
        await(() -> count(log, "nats connected") == 1);

        NATS.kill();
        await(() -> count(log, "nats disconnected") == 1);
        // The lost socket is the outage's first failure; later attempts add no line.
        await(() -> count(log, "nats connection failing") == 1);
        NATS.restart();

        await(() -> connection.getStatus() == Connection.Status.CONNECTED);
        await(() -> count(log, "nats reconnected") == 1);
        // jnats counts the reconnect after it has queued the RECONNECTED event, so the
        // listener's line can come first: wait for the count rather than read it once.
        await(() -> connection.getStatistics().getReconnects() > 0);
        assertThat(count(log, "nats disconnected")).isEqualTo(1);
        assertThat(count(log, "nats connection failing"))
            .as("one warning for all the failing attempts of one outage")
            .isEqualTo(1);
      } finally {
        connection.close();
      }
      await(() -> count(log, "nats connection closed") == 1);
      List<String> lines = log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(lines)
          .allSatisfy(
              line ->
                  assertThat(line)
                      .contains("connection_name=bothy-test-reconnect")
                      .doesNotContain("127.0.0.1")
                      .doesNotContain(Integer.toString(NATS.port())));
    }
  }

  @Test
  void a_first_connection_that_fails_says_so_and_promises_no_retry() throws Exception {
    int closed;
    try (java.net.ServerSocket free =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = free.getLocalPort();
    }
    NatsSettings settings =
        new NatsSettings(
            "nats://127.0.0.1:" + closed,
            new Credential.None(),
            Duration.ofMillis(500),
            Duration.ofMillis(20),
            Duration.ofMillis(200),
            "bothy-test-first");
    try (CapturedLog log = CapturedLog.of(ConnectionLog.class)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> NatsConnections.open(settings))
          .isInstanceOf(RuntimeException.class);

      List<String> lines = log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(lines)
          .as("a connection that never stood is not lost, nor retried")
          .noneMatch(line -> line.contains("disconnected") || line.contains("retrying"));
      assertThat(lines)
          .filteredOn(line -> line.contains("nats connection attempt failed"))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("connection_name=bothy-test-first")
                      .contains("error.type=")
                      .doesNotContain(Integer.toString(closed)));
    }
  }

  @Test
  void a_server_error_is_logged_as_its_words_only() {
    assertThat(ConnectionLog.reason("Authorization Violation: user 'alex' = 42"))
        .isEqualTo("Authorization Violation user alex");
    assertThat(ConnectionLog.reason(null)).isEmpty();
    assertThat(ConnectionLog.reason("x".repeat(200))).hasSize(64);
  }

  private static long count(CapturedLog log, String prefix) {
    return log.events().stream().filter(e -> e.getFormattedMessage().startsWith(prefix)).count();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + AWAIT);
      }
      Thread.sleep(10);
    }
  }
}
