package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.platform.pg.Migrator;
import dev.bothy.testing.PgExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

class MigrateCommandTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir Path dir;

  @Test
  void db_migrate_applies_the_changelog_once_and_db_status_then_reports_nothing_pending()
      throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");

    // The count of changesets, read from the master changelog rather than the schema version.
    long changesets =
        Files.readAllLines(Path.of("db/changelog/master.xml")).stream()
            .filter(line -> line.contains("<include file="))
            .count();
    assertThat(status(config)).contains(changesets + " changesets have not been applied");

    CommandLine.Outcome first = CommandLine.run("db", "migrate", config.toString());
    assertThat(first.failure()).isEmpty();
    List<String> applied = appliedChangesets(url);
    assertThat(applied)
        .containsExactly(
            "0001-roles",
            "0002-instance",
            "0003-event-log",
            "0004-event-log-partitions",
            "0005-jobs",
            "0006-event-consumer-cursors",
            "0007-api-idempotency-keys",
            "0008-webhooks",
            "0009-bus-relay-cursors",
            "0010-bus-dispatch",
            "0011-system-pings",
            "0012-console-dead-letter-errors",
            "0013-system-echoes");
    assertThat(column(url, "SELECT schema_version || ' ' || min_server_version FROM instance"))
        .containsExactly(Migrator.SCHEMA_VERSION + " " + Migrator.MIN_SERVER_VERSION);
    List<String> identity = column(url, "SELECT instance_id || ' ' || sync_epoch FROM instance");

    assertThat(status(config)).contains("is up to date");
    // Standard output carries the command's answer only, so it can be redirected to a file; the
    // log lines go to standard error.
    Path schema = dir.resolve("schema.xml");
    CommandLine.Outcome dump =
        CommandLine.run("db", "dump", "--output", schema.toString(), config.toString());
    assertThat(dump.failure()).isEmpty();
    assertThat(Files.readString(schema)).startsWith("<?xml");
    assertThat(dump.out()).doesNotContain("INFO ");
    assertThat(first.out()).doesNotContain("INFO ").doesNotContain("HikariDataSource");

    CommandLine.Outcome second = CommandLine.run("db", "migrate", config.toString());
    assertThat(second.failure()).isEmpty();
    assertThat(appliedChangesets(url)).isEqualTo(applied);
    assertThat(executedAt(url)).hasSize((int) changesets);
    assertThat(column(url, "SELECT instance_id || ' ' || sync_epoch FROM instance"))
        .as("a second migrate keeps the identity")
        .isEqualTo(identity);
  }

  @Test
  void after_a_first_migration_as_superuser_the_owner_role_migrates_and_reads_the_status()
      throws Exception {
    String url = PG.createEmptyDatabase("postgres");
    Path asSuperuser = dir.resolve("superuser.yml");
    Files.writeString(asSuperuser, "database:\n  url: " + url + "\n  migrationUser: postgres\n");
    Path asOwner = dir.resolve("owner.yml");
    Files.writeString(asOwner, "database:\n  url: " + url + "\n");

    assertThat(CommandLine.run("db", "migrate", asSuperuser.toString()).failure()).isEmpty();

    assertThat(status(asOwner)).contains("is up to date");
    CommandLine.Outcome again = CommandLine.run("db", "migrate", asOwner.toString());
    assertThat(again.failure()).isEmpty();
    assertThat(
            column(
                url,
                "SELECT tableowner FROM pg_tables WHERE tablename LIKE 'databasechangelog%'"
                    + " UNION SELECT nspowner::regrole::text FROM pg_namespace"
                    + " WHERE nspname = 'public'"))
        .containsExactly("bothy_owner");
  }

  @Test
  void a_database_newer_than_the_binary_keeps_its_instance_record_and_migrate_exits_0()
      throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");
    assertThat(CommandLine.run("db", "migrate", config.toString()).failure()).isEmpty();
    // A newer binary migrated this database: one more changeset, and its own record.
    applyNewerChangeset(url);
    execute(url, "UPDATE instance SET schema_version = 9999, min_server_version = '0.0.1'");

    CommandLine.Outcome again = CommandLine.run("db", "migrate", config.toString());

    assertThat(again.failure()).isEmpty();
    assertThat(column(url, "SELECT schema_version || ' ' || min_server_version FROM instance"))
        .containsExactly("9999 0.0.1");
  }

  private static void applyNewerChangeset(String url) throws Exception {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser("bothy_owner");
    try (Connection c = ds.getConnection()) {
      liquibase.database.Database database =
          liquibase.database.DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new liquibase.database.jvm.JdbcConnection(c));
      liquibase.Scope.child(
          liquibase.Scope.Attr.resourceAccessor.name(),
          new liquibase.resource.ClassLoaderResourceAccessor(),
          () ->
              new liquibase.command.CommandScope(
                      liquibase.command.core.UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(
                      liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep
                          .DATABASE_ARG,
                      database)
                  .addArgumentValue(
                      liquibase.command.core.UpdateCommandStep.CHANGELOG_FILE_ARG,
                      "db/test-newer/master.xml")
                  .execute());
    }
  }

  private static void execute(String url, String sql) throws SQLException {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser("bothy_owner");
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void a_dry_run_or_a_partial_migration_records_nothing() throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");

    assertThat(CommandLine.run("db", "migrate", "--dry-run", config.toString()).failure())
        .isEmpty();
    assertThat(column(url, "SELECT to_regclass('public.instance')::text")).containsOnlyNulls();

    assertThat(CommandLine.run("db", "migrate", "--count", "1", config.toString()).failure())
        .isEmpty();
    assertThat(appliedChangesets(url)).containsExactly("0001-roles");
    assertThat(column(url, "SELECT to_regclass('public.instance')::text")).containsOnlyNulls();
  }

  @Test
  void on_the_embedded_default_a_dry_run_and_status_change_nothing_and_migrate_applies_it_all()
      throws Exception {
    Path data = dir.resolve("pg");
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config, "database:\n  embedded:\n    dataDirectory: " + data + "\n    port: 0\n");

    CommandLine.Outcome dryRun = CommandLine.run("db", "migrate", "--dry-run", config.toString());
    assertThat(dryRun.succeeded()).isTrue();
    CommandLine.Outcome status = CommandLine.run("db", "status", config.toString());
    assertThat(status.succeeded()).isTrue();
    assertThat(embeddedChangesets(data)).as("a dry run and status apply nothing").isEmpty();

    assertThat(CommandLine.run("db", "migrate", config.toString()).failure()).isEmpty();
    assertThat(embeddedChangesets(data)).hasSize((int) Migrator.SCHEMA_VERSION);
  }

  /** The changesets a stopped embedded data directory records, read by starting it. */
  private static List<String> embeddedChangesets(Path data) {
    try (dev.bothy.platform.pg.EmbeddedPostgresServer server =
        dev.bothy.platform.pg.EmbeddedPostgresServer.start(
            data,
            0,
            java.time.Duration.ofSeconds(60),
            java.time.Duration.ZERO,
            dev.bothy.platform.pg.EmbeddedPostgresServer.Durability.THROWAWAY)) {
      List<String> ids = new ArrayList<>();
      try (Connection c = server.superuserDataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT id FROM databasechangelog"
                      + " WHERE to_regclass('public.databasechangelog') IS NOT NULL")) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      } catch (SQLException e) {
        if (!"42P01".equals(e.getSQLState())) {
          throw new IllegalStateException(e);
        }
      }
      return ids;
    }
  }

  @Test
  void db_migrate_as_a_role_without_the_rights_says_so_in_one_line_naming_the_keys()
      throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    // bothy_app may not create anything in the schema public of a database it does not own.
    Files.writeString(config, "database:\n  url: " + url + "\n  migrationUser: bothy_app\n");

    CommandLine.Outcome outcome = CommandLine.run("db", "migrate", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .startsWith("db migrate: ")
        .contains("SQLSTATE 42501")
        .contains("database.migrationUser")
        .doesNotContain("\tat ");
    assertThat(outcome.err().strip().lines()).hasSize(1);
  }

  @Test
  void db_migrate_with_a_wrong_user_fails_naming_the_keys() throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n  migrationUser: robin_unknown\n");

    CommandLine.Outcome outcome = CommandLine.run("db", "migrate", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .contains("cannot connect to the database as robin_unknown")
        .contains("database.migrationUser");
  }

  @Test
  void a_db_subcommand_without_its_required_option_says_so_in_one_line() throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");

    // db rollback, with or without its options, is refused as a whole (below): none can work.
    for (String sub : List.of("locks")) {
      CommandLine.Outcome outcome = CommandLine.run("db", sub, config.toString());

      assertThat(outcome.succeeded()).as(sub).isFalse();
      assertThat(outcome.err())
          .as(sub)
          .startsWith("db " + sub + ": ")
          .contains("java -jar bothy.jar db " + sub + " -h")
          .doesNotContain("\tat ")
          .doesNotContain("Exception");
      assertThat(outcome.err().strip().lines()).as(sub).hasSize(1);
    }
  }

  @Test
  void db_rollback_says_in_one_line_that_the_schema_rolls_forward_only() throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");
    assertThat(CommandLine.run("db", "migrate", config.toString()).failure()).isEmpty();
    List<String> applied = appliedChangesets(url);

    for (List<String> args :
        List.of(
            List.of("db", "rollback", "--count", "1", config.toString()),
            List.of("db", "rollback", "--count", "1", "--dry-run", config.toString()))) {
      CommandLine.Outcome outcome = CommandLine.run(args.toArray(String[]::new));

      assertThat(outcome.succeeded()).as(args.toString()).isFalse();
      assertThat(outcome.err())
          .as(args.toString())
          .startsWith("db rollback: ")
          .contains("restore")
          .doesNotContain("\tat ");
      assertThat(outcome.err().strip().lines()).as(args.toString()).hasSize(1);
      assertThat(outcome.out()).as(args.toString()).isEmpty();
    }
    assertThat(appliedChangesets(url)).as("nothing rolled back").isEqualTo(applied);
  }

  @Test
  void db_rollback_is_refused_before_any_database_opens() throws Exception {
    // Liquibase would print "Rolling Back Changeset" and its errors on standard output, the
    // command's answer, before the refusal: nothing may start. No server listens on port 1.
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        "database:\n  url: jdbc:postgresql://127.0.0.1:1/bothy\n  password: robin-pw\n"
            + "  migrationPassword: robin-pw\n");

    CommandLine.Outcome outcome =
        CommandLine.run("db", "rollback", "--count", "1", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err().strip())
        .startsWith("db rollback: Bothy's changesets carry no rollback")
        .doesNotContain("cannot connect");
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void a_configuration_file_that_is_not_there_is_one_line() throws Exception {
    String missing = dir.resolve("nosuch.yml").toString();
    for (List<String> args :
        List.of(List.of("db", "status", missing), List.of("worker", missing))) {
      CommandLine.Outcome outcome = CommandLine.run(args.toArray(String[]::new));

      assertThat(outcome.succeeded()).as(args.toString()).isFalse();
      assertThat(outcome.err().strip())
          .as(args.toString())
          .isEqualTo(
              (args.get(0).equals("db") ? "db status" : "worker")
                  + ": File "
                  + missing
                  + " not found");
    }
  }

  @Test
  void db_tag_given_only_the_file_says_where_the_tag_goes_and_opens_no_database() throws Exception {
    Path config = dir.resolve("worker.yml");
    Files.writeString(config, "database:\n  url: " + PG.createEmptyDatabase("bothy_owner") + "\n");

    CommandLine.Outcome outcome = CommandLine.run("db", "tag", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err().strip())
        .startsWith("db tag: " + config + " is the configuration file, not a tag name")
        .contains("db tag " + config + " NAME");
    assertThat(outcome.out() + outcome.err()).doesNotContain("tagged");
  }

  @Test
  void db_test_refuses_in_one_line_and_applies_nothing() throws Exception {
    String url = PG.createEmptyDatabase("bothy_owner");
    Path config = dir.resolve("config.yml");
    Files.writeString(config, "database:\n  url: " + url + "\n");

    CommandLine.Outcome outcome = CommandLine.run("db", "test", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .startsWith("db test: ")
        .contains("db migrate")
        .doesNotContain("\tat ");
    assertThat(outcome.err().strip().lines()).hasSize(1);
    // db test migrates, rolls back and migrates again: with no rollback it stopped after the first
    // step, with the schema applied and no instance record.
    assertThat(column(url, "SELECT tablename FROM pg_tables WHERE tablename = 'jobs'"))
        .as("no changeset applied")
        .isEmpty();
  }

  @Test
  void db_migrate_on_a_taken_embedded_port_names_that_key_not_the_connectors() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Path config = dir.resolve("config.yml");
      Files.writeString(
          config,
          "database:\n  embedded:\n    dataDirectory: "
              + dir.resolve("pg")
              + "\n    port: "
              + taken.getLocalPort()
              + "\n");

      CommandLine.Outcome outcome = CommandLine.run("db", "migrate", config.toString());

      assertThat(outcome.succeeded()).isFalse();
      assertThat(outcome.err())
          .startsWith("db migrate: port " + taken.getLocalPort())
          .contains("(database.embedded.port)")
          .doesNotContain("server.applicationConnectors")
          .doesNotContain("\tat ");
    }
  }

  private static String status(Path config) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      CommandLine.Outcome outcome = CommandLine.run("db", "status", config.toString());
      assertThat(outcome.failure()).isEmpty();
      return captured.toString(StandardCharsets.UTF_8) + outcome.out();
    } finally {
      System.setOut(original);
    }
  }

  private static List<String> appliedChangesets(String url) throws SQLException {
    return column(url, "SELECT id FROM databasechangelog ORDER BY orderexecuted");
  }

  private static List<String> executedAt(String url) throws SQLException {
    return column(url, "SELECT dateexecuted::text FROM databasechangelog");
  }

  private static List<String> column(String url, String sql) throws SQLException {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser("bothy_owner");
    List<String> values = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }
}
