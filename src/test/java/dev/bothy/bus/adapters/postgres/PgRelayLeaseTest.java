package dev.bothy.bus.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.platform.pg.PoolSettings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The relay's lease when the database cannot be reached. */
class PgRelayLeaseTest {
  @Test
  void a_lease_try_that_cannot_reach_the_database_fails_the_round_instead_of_standing_by()
      throws Exception {
    int closed;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = probe.getLocalPort();
    }
    PgRelayLease lease =
        new PgRelayLease(
            new PoolSettings(
                "jdbc:postgresql://127.0.0.1:" + closed + "/postgres",
                "bothy_app",
                null,
                1,
                Duration.ofSeconds(2),
                PgRelayLease.APPLICATION_NAME),
            Duration.ofSeconds(30));

    // A false would read as "another process holds it": the relay would log that it recovered
    // while the database is still out of reach.
    assertThatThrownBy(lease::tryAcquire)
        .isInstanceOf(BothyException.class)
        .satisfies(e -> ((BothyException) e).kind().equals(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("bus relay lease");
  }
}
