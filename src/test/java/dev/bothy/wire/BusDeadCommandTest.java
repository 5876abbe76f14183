package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.testing.PgExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code bus dead list|show|replay}: no NATS, one table, and a replay queues one job. */
class BusDeadCommandTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir Path dir;
  private Path config;
  private final UUID open = Ids.newId();
  private final UUID replayed = Ids.newId();
  private final UUID eventId = Ids.newId();

  @BeforeEach
  void setUp() throws Exception {
    config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + PG.jdbcUrl() + "\n");
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE bus_dead_letters, jobs");
      st.execute(
          "INSERT INTO bus_dead_letters (id, handler, durable, event_id, event_seq, event_type,"
              + " error_kind, error_class, error_message, deliveries, dead_at) VALUES ('"
              + open
              + "', 'system.echo', 'system_echo', '"
              + eventId
              + "', 42, 'system.pinged', 'invalid', 'dev.bothy.kernel.BothyException',"
              + " 'the ping of Alex is malformed', 1, '2026-12-02T10:00:00.123456Z')");
      st.execute(
          "INSERT INTO bus_dead_letters (id, handler, durable, event_id, event_seq, event_type,"
              + " error_kind, error_class, error_message, deliveries, dead_at, replayed_at, replays)"
              + " VALUES ('"
              + replayed
              + "', 'system.audit', 'system_echo', '"
              + Ids.newId()
              + "', 41, 'system.pinged', 'unavailable', 'dev.bothy.kernel.BothyException',"
              + " 'upstream away', 10, '2026-12-01T10:00:00Z', '2026-12-01T11:00:00Z', 1)");
    }
  }

  private CommandLine.Outcome dead(String verb, String... rest) {
    String[] all = new String[rest.length + 4];
    all[0] = "bus";
    all[1] = "dead";
    all[2] = verb;
    all[3] = config.toString();
    System.arraycopy(rest, 0, all, 4, rest.length);
    return CommandLine.run(all);
  }

  @Test
  void the_help_of_bus_dead_and_of_each_verb_says_what_it_does() {
    // argparse4j justifies its lines with extra spaces.
    assertThat(help("dead"))
        .contains("Lists, shows and replays the dead letters of bus consumers")
        .contains("bothy.dead.");
    assertThat(help("dead", "list")).contains("Lists the dead letters waiting for an operator");
    assertThat(help("dead", "show")).contains("Shows one dead letter");
    assertThat(help("dead", "replay"))
        .contains("Runs the handler again for the dead letter's event");
  }

  private static String help(String... words) {
    String[] args = new String[words.length + 2];
    args[0] = "bus";
    System.arraycopy(words, 0, args, 1, words.length);
    args[args.length - 1] = "-h";
    return CommandLine.run(args).out().replaceAll("\\s+", " ");
  }

  @Test
  void list_shows_the_open_dead_letters_and_all_of_them_with_all() {
    CommandLine.Outcome list = dead("list");
    assertThat(list.succeeded()).as(list.err()).isTrue();
    String[] lines = list.out().split("\n");
    assertThat(lines[0]).startsWith("ID").contains("HANDLER", "EVENT SEQ", "ERROR KIND", "STATE");
    assertThat(lines).hasSize(2);
    assertThat(lines[1]).contains(open.toString(), "system.echo", "42", "invalid", "open");
    assertThat(lines[1].indexOf("system.echo"))
        .as("the columns line up under their heads, a time with microseconds included")
        .isEqualTo(lines[0].indexOf("HANDLER"));

    CommandLine.Outcome all = dead("list", "--all");
    assertThat(all.out().split("\n")).hasSize(3);
    assertThat(all.out()).contains(replayed.toString(), "replayed");
  }

  @Test
  void show_prints_every_field() {
    CommandLine.Outcome show = dead("show", open.toString());
    assertThat(show.succeeded()).as(show.err()).isTrue();
    assertThat(show.out())
        .contains("handler: system.echo")
        .contains("event seq: 42")
        .contains("error kind: invalid")
        .contains("error message: the ping of Alex is malformed")
        .contains("state: open");
  }

  @Test
  void replay_marks_it_and_queues_one_dispatch_job_and_refuses_a_second_time() throws Exception {
    CommandLine.Outcome replay = dead("replay", open.toString());
    assertThat(replay.succeeded()).as(replay.err()).isTrue();
    assertThat(replay.out()).contains("replayed " + open, "system.echo", "event 42");
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT kind || ' ' || queue || ' ' || (args->>'eventId') || ' ' || (args->>'seq')"
                    + " FROM jobs"))
        .containsExactly("bus.dispatch bus " + eventId + " 42");
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT replays || ' ' || (replayed_at IS NOT NULL) FROM bus_dead_letters WHERE id"
                    + " = '"
                    + open
                    + "'"))
        .containsExactly("1 true");

    CommandLine.Outcome again = dead("replay", open.toString());
    assertThat(again.succeeded()).isFalse();
    assertThat(again.err()).contains("bus dead: the dead letter " + open + " was replayed");
    assertThat(PgExtension.rows(PG.owner(), "SELECT count(*) FROM jobs")).containsExactly("1");
  }

  @Test
  void bad_input_gets_one_clear_line_and_a_failure() {
    CommandLine.Outcome notAnId = dead("show", "robin");
    assertThat(notAnId.succeeded()).isFalse();
    assertThat(notAnId.err()).contains("bus dead: 'robin' is not a dead letter id (a UUID)");
    // The file is optional, so a lone argument is the id: say what the file is doing there.
    CommandLine.Outcome fileOnly = CommandLine.run("bus", "dead", "show", config.toString());
    assertThat(fileOnly.succeeded()).isFalse();
    assertThat(fileOnly.err())
        .contains(
            "bus dead: '"
                + config
                + "' is a file, not a dead letter id: give the id after the configuration file"
                + " (bus dead show [file] id)");
    UUID unknown = Ids.newId();
    CommandLine.Outcome missing = dead("replay", unknown.toString());
    assertThat(missing.succeeded()).isFalse();
    assertThat(missing.err()).contains("no dead letter " + unknown).doesNotContain("at dev.bothy");
  }
}
