package dev.bothy.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reads a run's {@link EndState}: the consumer's tables and the bus's rows, with the events named
 * alike in every run (D-CK-3).
 */
final class EndStates {
  private EndStates() {}

  /**
   * The follow-on events, delivery rows and dead letters of a run: plain reads of the bus's tables
   * with the owner role, which a test may not reach through the bus's stores (their types are the
   * module's internals and hold no listing of everything).
   */
  static final String EVENTS_SQL =
      "SELECT id::text, type, resource_type, resource_id::text, payload::text FROM event_log"
          + " ORDER BY seq";

  static final String DELIVERIES_SQL = "SELECT handler, event_id::text FROM event_deliveries";

  static final String DEAD_LETTERS_SQL =
      "SELECT handler, event_id::text, error_kind, error_class FROM bus_dead_letters";

  static EndState read(DataSource owner, ChaosConsumer consumer, List<UUID> scriptEvents)
      throws SQLException {
    Map<String, String> names = new HashMap<>();
    for (int i = 0; i < scriptEvents.size(); i++) {
      names.put(scriptEvents.get(i).toString(), "<script event " + i + ">");
    }
    List<String[]> events = rows(owner, EVENTS_SQL);
    // A follow-on event's id is random in every run: name it by what it says, and number equal
    // ones, so a doubled follow-on event shows.
    Map<String, Integer> seen = new HashMap<>();
    List<String[]> followOn = new ArrayList<>();
    for (String[] e : events) {
      if (!names.containsKey(e[0])) {
        String what = "<follow-on " + e[1] + " " + e[2] + "/" + e[3] + ">";
        int n = seen.merge(what, 1, Integer::sum);
        names.put(e[0], n == 1 ? what : what + "#" + n);
        followOn.add(e);
      }
    }
    List<String> followOnLines = new ArrayList<>();
    for (String[] e : followOn) {
      followOnLines.add(e[1] + " " + e[2] + "/" + e[3] + " " + named(e[4], names));
    }
    Map<String, List<String>> sections = new LinkedHashMap<>();
    List<String> tables = new ArrayList<>(consumer.state().read(owner));
    sections.put("tables", tables);
    sections.put("follow-on events", sorted(followOnLines));
    sections.put(
        "delivery rows",
        sorted(
            rows(owner, DELIVERIES_SQL).stream()
                .map(r -> r[0] + " " + name(r[1], names))
                .toList()));
    sections.put(
        "dead letters",
        sorted(
            rows(owner, DEAD_LETTERS_SQL).stream()
                .map(r -> r[0] + " " + name(r[1], names) + " " + r[2] + " " + r[3])
                .toList()));
    return new EndState(sections);
  }

  private static String name(String id, Map<String, String> names) {
    return names.getOrDefault(id, "<unknown event " + id + ">");
  }

  private static String named(String text, Map<String, String> names) {
    String out = text;
    for (Map.Entry<String, String> e : names.entrySet()) {
      out = out.replace(e.getKey(), e.getValue());
    }
    return out;
  }

  private static List<String> sorted(List<String> lines) {
    List<String> copy = new ArrayList<>(lines);
    copy.sort(null);
    return copy;
  }

  static List<String[]> rows(DataSource source, String sql) throws SQLException {
    List<String[]> rows = new ArrayList<>();
    try (Connection c = source.getConnection();
        Statement st = c.createStatement();
        ResultSet r = st.executeQuery(sql)) {
      int columns = r.getMetaData().getColumnCount();
      while (r.next()) {
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
          row[i] = r.getString(i + 1);
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
