package dev.bothy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every table of the migrated schema has its retention class in docs/security/data-retention.md,
 * from the classes that page defines, and the cursor and counter tables are {@code config} as the
 * tickets name them.
 */
class DataRetentionDocTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Set<String> CLASSES =
      Set.of("config", "events", "operational", "managed", "short");

  @Test
  void every_table_of_the_schema_has_a_retention_class() throws Exception {
    Map<String, String> documented = documentedClasses();
    List<String> missing = new ArrayList<>();
    for (String table : tables()) {
      if (!documented.containsKey(table)) {
        missing.add(table);
      }
    }
    assertThat(missing).as("tables without a row in data-retention.md").isEmpty();
    assertThat(documented.values()).allSatisfy(c -> assertThat(CLASSES).contains(c));
    assertThat(documented)
        .containsEntry("event_consumer_cursors", "config")
        .containsEntry("sequence_counters", "config")
        .containsEntry("instance", "config")
        .containsEntry("webhook_subscriptions", "managed")
        .containsEntry("webhook_attempts", "operational");
  }

  /** Table name to class, from the rows of the page's "Tables" table. */
  private static Map<String, String> documentedClasses() throws IOException {
    Path doc =
        Path.of(System.getProperty("bothy.test.projectDir", "."))
            .resolve("docs/security/data-retention.md");
    Map<String, String> classes = new LinkedHashMap<>();
    boolean inTables = false;
    for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
      if (line.startsWith("## ")) {
        inTables = line.equals("## Tables");
        continue;
      }
      String[] cells = line.split("\\|");
      if (!inTables || cells.length < 3 || !cells[1].trim().startsWith("`")) {
        continue;
      }
      String klass = cells[2].trim().replace("`", "");
      for (String name : cells[1].split(",")) {
        String table = name.trim().replaceAll("^`([a-z_]+)`.*$", "$1");
        classes.put(table, klass);
      }
    }
    return classes;
  }

  /** The ordinary and partitioned tables of the schema, without the partitions of event_log. */
  private static List<String> tables() throws SQLException {
    List<String> tables = new ArrayList<>();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
                    + " AND NOT c.relispartition ORDER BY c.relname")) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    }
    assertThat(tables).contains("event_log", "event_consumer_cursors");
    return tables;
  }
}
