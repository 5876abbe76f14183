package dev.bothy.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tables of the instance module, read back from the catalog. No test leaves a change behind, so
 * the counters every test reads are the changeset's, in any order.
 */
class InstanceTablesTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Test
  void the_instance_table_matches_the_specification() throws SQLException {
    assertThat(columns("instance"))
        .containsExactly(
            "id smallint NO null",
            "instance_id uuid NO null",
            "sync_epoch uuid NO null",
            "setup_completed_at timestamp with time zone YES null",
            "schema_version bigint NO null",
            "min_server_version text NO null",
            "created_at timestamp with time zone NO now()");
    assertThat(constraints("instance"))
        .containsExactly(
            "instance_min_server_version_not_blank c CHECK ((min_server_version <> ''::text))",
            "instance_pkey p PRIMARY KEY (id)",
            "instance_schema_version_positive c CHECK ((schema_version > 0))",
            "instance_single_row c CHECK ((id = 1))");
  }

  @Test
  void the_sequence_counters_table_matches_the_specification() throws SQLException {
    assertThat(columns("sequence_counters"))
        .containsExactly("name text NO null", "value bigint NO 0");
    assertThat(constraints("sequence_counters"))
        .containsExactly(
            "sequence_counters_name_known c CHECK ((name = ANY (ARRAY['event_seq'::text,"
                + " 'audit_seq'::text, 'permission_version'::text])))",
            "sequence_counters_pkey p PRIMARY KEY (name)",
            "sequence_counters_value_not_negative c CHECK ((value >= 0))");
  }

  @Test
  void the_changeset_creates_the_three_counters_at_zero() throws SQLException {
    assertThat(
            PgExtension.rows(
                PG.app(), "SELECT name || '=' || value FROM sequence_counters ORDER BY name"))
        .containsExactly("audit_seq=0", "event_seq=0", "permission_version=0");
  }

  @Test
  void a_counter_never_decreases_nor_changes_its_name_even_for_the_owner() throws SQLException {
    // Each attempt raises the counter first, then rolls back: the class's counters stay as the
    // changeset made them, whatever test runs next.
    assertThatThrownBy(
            () ->
                rolledBack(
                    PG.owner(),
                    "UPDATE sequence_counters SET value = value + 5 WHERE name = 'audit_seq'",
                    "UPDATE sequence_counters SET value = value - 1 WHERE name = 'audit_seq'"))
        .hasMessageContaining("cannot decrease");
    assertThatThrownBy(
            () ->
                rolledBack(
                    PG.owner(),
                    "UPDATE sequence_counters SET value = value + 5 WHERE name = 'audit_seq'",
                    "UPDATE sequence_counters SET name = 'event_seq' WHERE name = 'audit_seq'"))
        .hasMessageContaining("cannot be renamed");
  }

  @Test
  void the_runtime_role_cannot_insert_or_delete_counters_nor_write_the_instance()
      throws SQLException {
    assertThatThrownBy(
            () -> execute(PG.app(), "INSERT INTO sequence_counters VALUES ('event_seq', 1)"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(() -> execute(PG.app(), "DELETE FROM sequence_counters"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(
            () ->
                execute(
                    PG.app(), "UPDATE sequence_counters SET name = 'x' WHERE name = 'event_seq'"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(() -> execute(PG.app(), "DELETE FROM instance"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(() -> execute(PG.app(), "UPDATE instance SET min_server_version = '9.9.9'"))
        .hasMessageContaining("permission denied");
    assertThat(PgExtension.rows(PG.app(), "SELECT count(*)::text FROM instance"))
        .containsExactly("1");
  }

  private static List<String> columns(String table) throws SQLException {
    return PgExtension.rows(
        PG.owner(),
        "SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' '"
            + " || coalesce(column_default, 'null')"
            + " FROM information_schema.columns WHERE table_schema = 'public'"
            + " AND table_name = '"
            + table
            + "' ORDER BY ordinal_position");
  }

  private static List<String> constraints(String table) throws SQLException {
    return PgExtension.rows(
        PG.owner(),
        "SELECT conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid)"
            + " FROM pg_constraint WHERE conrelid = 'public."
            + table
            + "'::regclass AND contype <> 'n' ORDER BY conname");
  }

  /** Runs the statements in one transaction and rolls it back, also when one of them fails. */
  private static void rolledBack(DataSource ds, String... statements) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      try {
        for (String sql : statements) {
          st.execute(sql);
        }
      } finally {
        c.rollback();
      }
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
