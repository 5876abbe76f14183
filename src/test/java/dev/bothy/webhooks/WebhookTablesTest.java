package dev.bothy.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tables {@code webhook_subscriptions} and {@code webhook_attempts} read back from the catalog:
 * the runtime role's grants both ways, and the checks that keep a row consistent (a disabled row
 * has a reason, an active one has none; a previous secret has its expiry).
 */
class WebhookTablesTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static List<String> grants(String table) throws SQLException {
    return PgExtension.rows(
        PG.owner(),
        "SELECT privilege_type FROM information_schema.role_table_grants"
            + " WHERE table_schema = 'public' AND table_name = '"
            + table
            + "' AND grantee = 'bothy_app' ORDER BY privilege_type");
  }

  @Test
  void the_runtime_role_may_change_subscriptions_but_never_update_an_attempt() throws SQLException {
    assertThat(grants("webhook_subscriptions"))
        .containsExactly("DELETE", "INSERT", "SELECT", "UPDATE");
    assertThat(grants("webhook_attempts")).containsExactly("DELETE", "INSERT", "SELECT");
    for (String table : List.of("webhook_subscriptions", "webhook_attempts")) {
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT count(*)::text FROM information_schema.role_table_grants"
                      + " WHERE table_schema = 'public' AND table_name = '"
                      + table
                      + "' AND grantee = 'PUBLIC'"))
          .as(table)
          .containsExactly("0");
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT has_table_privilege('bothy_app', 'public."
                      + table
                      + "', 'TRUNCATE')::text"))
          .containsExactly("false");
    }
  }

  @Test
  void a_row_must_be_active_without_a_reason_or_disabled_with_a_known_one() throws SQLException {
    String insert =
        "INSERT INTO webhook_subscriptions (id, url, event_types, secret, ordered, rate_limit,"
            + " state, disabled_reason, created_at, updated_at) VALUES (gen_random_uuid(),"
            + " 'https://example.com/hook', ARRAY['settings.updated'], 'whsec_abc', false, 5, ";
    try (Connection c = PG.app().getConnection();
        Statement s = c.createStatement()) {
      s.execute(insert + "'active', null, now(), now())");
      s.execute(insert + "'disabled', 'gap', now(), now())");
      assertThatThrownBy(() -> s.execute(insert + "'disabled', null, now(), now())"))
          .hasMessageContaining("webhook_subscriptions_reason_when_disabled");
      assertThatThrownBy(() -> s.execute(insert + "'active', 'manual', now(), now())"))
          .hasMessageContaining("webhook_subscriptions_reason_when_disabled");
      assertThatThrownBy(() -> s.execute(insert + "'disabled', 'tired', now(), now())"))
          .hasMessageContaining("webhook_subscriptions_reason_known");
    }
  }
}
