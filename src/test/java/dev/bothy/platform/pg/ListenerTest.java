package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ListenerTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String APPLICATION = "bothy-test-listen";

  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();

  private Listener listener(List<String> payloads, AtomicInteger connects) {
    return new Listener(
        new PoolSettings(PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), APPLICATION),
        "test_channel",
        Duration.ofMillis(50),
        Duration.ofMillis(400),
        payloads::add,
        connects::incrementAndGet,
        fatal::add);
  }

  @Test
  void notifications_arrive_in_order_and_survive_killed_backends() throws Exception {
    List<String> payloads = new CopyOnWriteArrayList<>();
    AtomicInteger connects = new AtomicInteger();
    try (Listener listener = listener(payloads, connects)) {
      listener.start();
      await(() -> connects.get() == 1 && listening() == 1);

      notify("1");
      notify("2");
      await(() -> payloads.size() == 2);

      for (int kill = 1; kill <= 3; kill++) {
        terminateListeningBackend();
        int expected = kill + 1;
        await(() -> connects.get() == expected && listening() == 1);
        notify("after-" + kill);
        // A notification the backend has not yet sent when the next kill lands is lost by
        // contract (the owner re-reads in onConnected), so each one arrives before the next kill.
        int received = 2 + kill;
        await(() -> payloads.size() == received);
      }

      assertThat(payloads).containsExactly("1", "2", "after-1", "after-2", "after-3");
      assertThat(connects.get()).as("onConnected after each reconnect").isEqualTo(4);
    }
    await(() -> listening() == 0);
    assertThat(fatal).as("the thread ended only through the close").isEmpty();
  }

  @Test
  void a_channel_must_be_a_plain_identifier() {
    assertThatThrownBy(
            () ->
                new Listener(
                    new PoolSettings(
                        PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(1), APPLICATION),
                    "bad; channel",
                    Duration.ofMillis(50),
                    Duration.ofMillis(100),
                    p -> {},
                    () -> {},
                    fatal::add))
        .hasMessageContaining("plain identifier");
  }

  private static void notify(String payload) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_notify('test_channel', '" + payload + "')");
    }
  }

  private static int listening() {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                    + APPLICATION
                    + "'")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  private static void terminateListeningBackend() throws SQLException {
    try (Connection c = PG.superuser().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
              + APPLICATION
              + "'");
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 30 s");
      }
      Thread.sleep(20);
    }
  }
}
