package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The start checks of the instance record, in the test JVM against the test database. */
class InstanceStartTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private DropwizardTestSupport<BothyConfiguration> app;

  private DropwizardTestSupport<BothyConfiguration> app() {
    app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            (String) null,
            (String) null,
            application -> new RoleCommand(application, Role.WORKER, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl),
            ConfigOverride.config("server.adminConnectors[0].port", "0"));
    return app;
  }

  @AfterEach
  void stop() throws SQLException {
    if (app != null) {
      app.after();
      app = null;
    }
    PG.recordMigration();
  }

  @Test
  void a_schema_that_requires_a_newer_server_keeps_the_process_alive_but_never_ready()
      throws Exception {
    owner("UPDATE instance SET min_server_version = '99.0.0'");

    app().before();

    Http.Response ready = Http.get(app.getAdminPort(), "/readyz");
    assertThat(ready.status()).isEqualTo(503);
    assertThat(ready.body())
        .isEqualTo("{\"status\":\"not_ready\",\"failing\":[\"schema_requires_newer_server\"]}");
    assertThat(Http.get(app.getAdminPort(), "/healthz").status()).isEqualTo(200);
  }

  @Test
  void a_missing_instance_row_stops_the_start_with_a_hint() throws Exception {
    owner("DELETE FROM instance");
    try {
      assertThatThrownBy(() -> app().before())
          .hasStackTraceContaining("the database has no instance record")
          .hasStackTraceContaining("run db migrate");
    } finally {
      PG.recordMigration();
    }
  }

  @Test
  void a_database_without_the_instance_table_stops_the_start_with_a_hint() throws Exception {
    owner("ALTER TABLE instance RENAME TO instance_moved_away");
    try {
      assertThatThrownBy(() -> app().before())
          .hasStackTraceContaining("the database has no instance record")
          .hasStackTraceContaining("run db migrate");
    } finally {
      owner("ALTER TABLE instance_moved_away RENAME TO instance");
    }
  }

  @Test
  void a_schema_older_than_the_server_stops_the_start_with_a_hint() throws Exception {
    owner("UPDATE instance SET schema_version = 1");

    assertThatThrownBy(() -> app().before())
        .hasMessageContaining("is older than this server's")
        .hasMessageContaining("run db migrate");
  }

  private static void owner(String sql) throws SQLException {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
