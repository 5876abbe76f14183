package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every connection Bothy opens has pgjdbc's {@code logServerErrorDetail} off, so a server error's
 * message never carries the row values of its {@code DETAIL} (a unique violation names the key
 * value there): the pool's connections ({@link Pools#config}, which the Dropwizard pool factory and
 * the migrator use) and the LISTEN connection ({@link Pools#connect}, which {@link Listener} uses).
 * The state stays readable: the SQLSTATE is what logs and the unit of work keep.
 */
class ServerErrorDetailTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String MARKER = "leakmark-" + UUID.randomUUID();

  @BeforeAll
  static void table() throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE detail_probe (k text PRIMARY KEY)");
      st.execute("GRANT SELECT, INSERT ON detail_probe TO bothy_app");
    }
  }

  private static PoolSettings settings() {
    return new PoolSettings(
        PG.jdbcUrl(), "bothy_app", null, 1, Duration.ofSeconds(5), "bothy-test-detail");
  }

  @Test
  void a_pool_connection_reports_a_unique_violation_without_the_key_value() throws SQLException {
    try (HikariDataSource pool =
        new HikariDataSource(Pools.config(settings(), "bothy-test-detail", null, null))) {
      try (Connection c = pool.getConnection()) {
        assertNoDetail(c);
      }
    }
  }

  @Test
  void the_listen_connection_reports_a_unique_violation_without_the_key_value()
      throws SQLException {
    try (Connection c = Pools.connect(settings())) {
      assertNoDetail(c);
    }
  }

  @Test
  void a_default_driver_connection_would_carry_the_key_value() throws SQLException {
    // The control: without the property the driver prints the server's detail, so the two tests
    // above fail when a connection misses it.
    try (Connection c = PG.app().getConnection()) {
      SQLException e = duplicate(c);
      assertThat(e.getMessage()).contains(MARKER);
    }
  }

  private static void assertNoDetail(Connection c) throws SQLException {
    SQLException e = duplicate(c);
    assertThat(e.getSQLState()).isEqualTo("23505");
    assertThat(e.getMessage()).doesNotContain(MARKER).doesNotContain("Detail:");
  }

  private static SQLException duplicate(Connection c) throws SQLException {
    String key = MARKER + "-" + UUID.randomUUID();
    try (PreparedStatement st = c.prepareStatement("INSERT INTO detail_probe (k) VALUES (?)")) {
      st.setString(1, key);
      st.execute();
      try {
        st.execute();
      } catch (SQLException e) {
        return e;
      }
    }
    throw new AssertionError("the second insert of " + key + " did not fail");
  }
}
