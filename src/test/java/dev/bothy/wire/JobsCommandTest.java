package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.testing.JobsFixture;
import dev.bothy.testing.PgExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class JobsCommandTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  record NoteArgs(UUID userId) {}

  @TempDir Path dir;
  private Path config;
  private UUID discarded;
  private UUID completed;

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM jobs");
    }
    config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + PG.jdbcUrl() + "\n");
    JobsFixture jobs = new JobsFixture(PG, Clock.system());
    jobs.registry.register(JobKind.builder("test.note", NoteArgs.class, (c, a) -> {}).build());
    discarded = insert(jobs);
    completed = insert(jobs);
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "UPDATE jobs SET state = 'discarded', attempt = 3, finalized_at = now(), errors ="
              + " '[{\"at\": \"2026-03-01T12:00:00Z\", \"attempt\": 3, \"kind\": \"exception\","
              + " \"error\": \"java.lang.IllegalStateException\", \"message\": \"Robin is"
              + " away\"}]' WHERE id = '"
              + discarded
              + "'");
      st.execute(
          "UPDATE jobs SET state = 'completed', attempt = 1, finalized_at = now() WHERE id = '"
              + completed
              + "'");
    }
  }

  private static UUID insert(JobsFixture jobs) {
    return jobs.uow
        .run(() -> jobs.inserter.insertTx(new NoteArgs(Ids.newId())))
        .ids()
        .get(0)
        .orElseThrow();
  }

  private CommandLine.Outcome jobs(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "jobs";
    all[1] = args[0];
    all[2] = config.toString();
    System.arraycopy(args, 1, all, 3, args.length - 1);
    return CommandLine.run(all);
  }

  @Test
  void a_running_embedded_server_is_reached_with_the_password_of_its_data_directory()
      throws Exception {
    Path data = dir.resolve("owner-data");
    try (EmbeddedPostgresServer owner =
        EmbeddedPostgresServer.start(
            data,
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      // What a role does on the embedded server before it serves: migrate, then the password.
      Migrator.migrate(owner.superuserDataSource());
      PgExtension.recordInstance(owner.superuserDataSource());
      owner.setPassword("bothy_app");
      Path embedded = dir.resolve("embedded.yml");
      Files.writeString(embedded, "database:\n  embedded:\n    dataDirectory: " + data + "\n");
      CommandLine.Outcome listed =
          CommandLine.run(new String[] {"jobs", "list", embedded.toString()});
      assertThat(listed.succeeded()).as(listed.err()).isTrue();
      assertThat(listed.err()).doesNotContain(owner.password());
      assertThat(listed.out()).doesNotContain(owner.password());
    }
  }

  @Test
  void list_prints_an_aligned_table_and_filters_by_state_and_kind() {
    CommandLine.Outcome all = jobs("list");
    assertThat(all.succeeded()).as(all.err()).isTrue();
    String[] lines = all.out().split("\n");
    assertThat(lines[0]).startsWith("ID").contains("KIND", "STATE", "ATTEMPT");
    assertThat(lines).hasSize(3);
    int stateColumn = lines[0].indexOf("STATE");
    assertThat(lines[1].substring(stateColumn)).startsWith("completed");
    assertThat(lines[2].substring(stateColumn)).startsWith("discarded");

    CommandLine.Outcome dead = jobs("list", "--state", "discarded");
    assertThat(dead.out()).contains(discarded.toString()).doesNotContain(completed.toString());
    CommandLine.Outcome none = jobs("list", "--kind", "test.other");
    assertThat(none.out().split("\n")).hasSize(1);
  }

  @Test
  void show_prints_the_error_history_and_json_is_parseable() throws Exception {
    CommandLine.Outcome text = jobs("show", discarded.toString());
    assertThat(text.succeeded()).isTrue();
    assertThat(text.out())
        .contains("state         discarded")
        .contains("attempt       3 of 3")
        .contains("errors:")
        .contains("Robin is away");

    CommandLine.Outcome json = jobs("show", discarded.toString(), "--json");
    JsonNode node = new ObjectMapper().readTree(json.out());
    assertThat(node.get("state").asText()).isEqualTo("discarded");
    assertThat(node.get("args").get("userId").asText()).hasSize(36);
    assertThat(node.get("errors").get(0).get("message").asText()).isEqualTo("Robin is away");
  }

  @Test
  void retry_brings_a_discarded_job_back_and_cancel_ends_it() throws Exception {
    CommandLine.Outcome retried = jobs("retry", discarded.toString(), "--json");
    assertThat(retried.succeeded()).as(retried.err()).isTrue();
    JsonNode node = new ObjectMapper().readTree(retried.out());
    assertThat(node.get("state").asText()).isEqualTo("available");
    assertThat(node.get("attempt").asInt()).isZero();

    CommandLine.Outcome cancelled = jobs("cancel", discarded.toString());
    assertThat(cancelled.succeeded()).isTrue();
    assertThat(cancelled.out()).contains("cancelled by an operator");
  }

  @Test
  void bad_input_gets_one_clear_line_and_a_failure() {
    CommandLine.Outcome notAnId = jobs("show", "robin");
    assertThat(notAnId.succeeded()).isFalse();
    assertThat(notAnId.err()).contains("jobs show: 'robin' is not a job id (a UUID)");
    CommandLine.Outcome fileOnly = CommandLine.run("jobs", "show", config.toString());
    assertThat(fileOnly.succeeded()).isFalse();
    assertThat(fileOnly.err())
        .contains(
            "jobs show: '"
                + config
                + "' is a file, not a job id: give the id after the configuration file"
                + " (jobs show [file] id)");

    UUID unknown = Ids.newId();
    CommandLine.Outcome missing = jobs("retry", unknown.toString());
    assertThat(missing.succeeded()).isFalse();
    assertThat(missing.err()).contains("jobs retry: no job has the id " + unknown);

    CommandLine.Outcome done = jobs("retry", completed.toString());
    assertThat(done.succeeded()).isFalse();
    assertThat(done.err()).contains("is completed; only a discarded");

    CommandLine.Outcome finished = jobs("cancel", completed.toString());
    assertThat(finished.succeeded()).isFalse();
    assertThat(finished.err()).contains("already completed");

    CommandLine.Outcome badState = jobs("list", "--state", "lost");
    assertThat(badState.succeeded()).isFalse();
    assertThat(badState.err()).contains("unknown job state 'lost'");
    assertThat(badState.err()).doesNotContain("at dev.bothy");
  }

  @Test
  void a_running_embedded_server_that_refuses_the_connection_is_named_with_the_keys()
      throws Exception {
    Path data = dir.resolve("held-data");
    Files.createDirectories(data);
    int closed;
    try (java.net.ServerSocket free =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = free.getLocalPort();
    }
    // What a running owner leaves: its lock held, and postmaster.pid naming the port (line 4).
    Files.writeString(
        data.resolve("postmaster.pid"), "1\n" + data + "\n1700000000\n" + closed + "\n");
    Path embedded = dir.resolve("embedded.yml");
    Files.writeString(
        embedded,
        "database:\n  connectionTimeout: 1s\n  embedded:\n    dataDirectory: " + data + "\n");
    try (java.nio.channels.FileChannel lock =
        java.nio.channels.FileChannel.open(
            dir.resolve("held-data.lock"),
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.WRITE)) {
      lock.lock();
      // The lock is this JVM's; inUse sees it as held, as it would another process's.
      CommandLine.Outcome refused = CommandLine.run("jobs", "list", embedded.toString());

      assertThat(refused.succeeded()).isFalse();
      assertThat(refused.err())
          .contains("jobs list: cannot connect as bothy_app to the embedded PostgreSQL")
          .contains("port " + closed)
          .contains("database.embedded.dataDirectory")
          .doesNotContain("at dev.bothy");
    }
  }
}
