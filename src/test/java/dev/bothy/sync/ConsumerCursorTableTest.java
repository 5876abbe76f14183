package dev.bothy.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.bothy.testing.PgExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The table {@code event_consumer_cursors} read back from the catalog: columns with their types,
 * nullability and defaults, the keys, the grants of the runtime role both ways, and the CHECK of
 * the names against {@link ConsumerName#names()}, so a consumer added in code without a changeset
 * (or the other way round) fails here.
 */
class ConsumerCursorTableTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final String TABLE = "event_consumer_cursors";

  @Test
  void the_columns_have_the_types_nullability_and_defaults_of_the_data_model() throws SQLException {
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' '"
                    + " || coalesce(column_default, 'null')"
                    + " FROM information_schema.columns WHERE table_schema = 'public'"
                    + " AND table_name = '"
                    + TABLE
                    + "' ORDER BY ordinal_position"))
        .containsExactly(
            "name text NO null",
            "last_seq bigint NO 0",
            "updated_at timestamp with time zone NO now()");
  }

  @Test
  void the_primary_key_is_the_name_and_the_only_other_constraint_is_the_name_check()
      throws SQLException {
    assertThat(constraints())
        .containsExactly(
            "event_consumer_cursors_name_known c",
            "event_consumer_cursors_pkey p PRIMARY KEY (name)");
  }

  @Test
  void the_name_check_lists_exactly_the_consumer_names_of_the_code() throws SQLException {
    List<String> definitions =
        PgExtension.rows(
            PG.owner(),
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'public."
                + TABLE
                + "'::regclass AND conname = 'event_consumer_cursors_name_known'");
    assertThat(definitions).hasSize(1);
    List<String> listed = new ArrayList<>();
    Matcher literal = Pattern.compile("'([^']*)'::text").matcher(definitions.get(0));
    while (literal.find()) {
      listed.add(literal.group(1));
    }
    assertThat(listed)
        .as(definitions.get(0))
        .containsExactlyInAnyOrderElementsOf(
            ConsumerName.names().stream().map(ConsumerName::value).toList());
  }

  @Test
  void the_runtime_role_may_select_insert_and_update_and_nothing_else() throws SQLException {
    List<String> granted =
        PgExtension.rows(
            PG.owner(),
            "SELECT privilege_type FROM information_schema.role_table_grants"
                + " WHERE table_schema = 'public' AND table_name = '"
                + TABLE
                + "' AND grantee = 'bothy_app' ORDER BY privilege_type");
    assertThat(granted).containsExactly("INSERT", "SELECT", "UPDATE");
    for (String denied : List.of("DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")) {
      assertThat(
              PgExtension.rows(
                  PG.owner(),
                  "SELECT has_table_privilege('bothy_app', 'public."
                      + TABLE
                      + "', '"
                      + denied
                      + "')::text"))
          .as(denied)
          .containsExactly("false");
    }
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT count(*)::text FROM information_schema.role_table_grants"
                    + " WHERE table_schema = 'public' AND table_name = '"
                    + TABLE
                    + "' AND grantee = 'PUBLIC'"))
        .as("nothing for PUBLIC")
        .containsExactly("0");
  }

  @Test
  void the_runtime_role_really_cannot_delete_or_truncate_a_cursor() throws SQLException {
    for (String sql : List.of("DELETE FROM " + TABLE, "TRUNCATE " + TABLE)) {
      try (Connection c = PG.app().getConnection();
          Statement st = c.createStatement()) {
        SQLException refused = null;
        try {
          st.execute(sql);
        } catch (SQLException e) {
          refused = e;
        }
        if (refused == null) {
          fail(sql + " was allowed for bothy_app");
        }
        assertThat(refused.getSQLState()).as(sql).isEqualTo("42501");
      }
    }
  }

  private static List<String> constraints() throws SQLException {
    return PgExtension.rows(
        PG.owner(),
        "SELECT conname || ' ' || contype::text"
            + " || CASE WHEN contype = 'c' THEN '' ELSE ' ' || pg_get_constraintdef(oid) END"
            + " FROM pg_constraint WHERE conrelid = 'public."
            + TABLE
            + "'::regclass AND contype <> 'n' ORDER BY conname");
  }
}
