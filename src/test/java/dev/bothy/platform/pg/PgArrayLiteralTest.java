package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PgArrayLiteralTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  /** Strings that need quoting or escaping in an array literal, or that look like NULL. */
  private static final String[] AWKWARD = {
    "",
    "plain",
    "NULL",
    "null",
    " leading and trailing ",
    "a,b",
    "{braces}",
    "quote \" inside",
    "back\\slash",
    "\\\"",
    "tab\tnew\nline",
    "{\"changedKeys\":[\"k\\\"1\",\"k,2\"]}",
    "unicode \u00e9\u4e2d\ud83d\ude00",
    "ends with backslash \\",
  };

  @Test
  void text_elements_reach_postgresql_exactly_as_given() throws SQLException {
    PgArrayLiteral literal = new PgArrayLiteral(16);
    List<String> expected = new ArrayList<>(Arrays.asList(AWKWARD));
    for (String s : AWKWARD) {
      literal.add(s);
    }
    literal.add((String) null);
    expected.add(null);

    assertThat(roundTrip(literal.toString(), "text[]")).containsExactlyElementsOf(expected);
  }

  @Test
  void uuids_times_and_nulls_reach_postgresql_exactly_as_given() throws SQLException {
    UUID alex = UUID.fromString("0192a0c4-7d2e-7cc1-9a51-3b1f2e4d5c6a");
    UUID sam = UUID.randomUUID();
    PgArrayLiteral ids = new PgArrayLiteral(3).add(alex).add((UUID) null).add(sam);
    assertThat(roundTrip(ids.toString(), "uuid[]")).containsExactly(alex, null, sam);

    Instant micros = Instant.parse("2026-12-02T03:04:05.123456Z");
    Instant whole = Instant.parse("2026-12-02T00:00:00Z");
    PgArrayLiteral times = new PgArrayLiteral(3).add(micros).add(whole).add((Instant) null);
    List<Object> stored = roundTrip(times.toString(), "timestamptz[]");
    assertThat(stored).hasSize(3);
    assertThat(((OffsetDateTime) stored.get(0)).toInstant()).isEqualTo(micros);
    assertThat(((OffsetDateTime) stored.get(1)).toInstant()).isEqualTo(whole);
    assertThat(stored.get(2)).isNull();
  }

  @Test
  void an_empty_literal_is_an_empty_array() throws SQLException {
    assertThat(new PgArrayLiteral(0).toString()).isEqualTo("{}");
    assertThat(roundTrip("{}", "text[]")).isEmpty();
  }

  @Test
  void the_literal_is_the_documented_text_form() {
    String text = new PgArrayLiteral(3).add("a\"b").add((String) null).add("c\\d").toString();
    assertThat(text).isEqualTo("{\"a\\\"b\",NULL,\"c\\\\d\"}");
  }

  private static List<Object> roundTrip(String literal, String type) throws SQLException {
    try (Connection c = PG.app().getConnection();
        PreparedStatement st = c.prepareStatement("select ?::" + type)) {
      st.setString(1, literal);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        Array array = rs.getArray(1);
        List<Object> out = new ArrayList<>();
        try (ResultSet elements = array.getResultSet()) {
          while (elements.next()) {
            out.add(
                type.equals("timestamptz[]")
                    ? elements.getObject(2, OffsetDateTime.class)
                    : elements.getObject(2));
          }
        }
        return out;
      }
    }
  }
}
