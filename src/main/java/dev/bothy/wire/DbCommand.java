package dev.bothy.wire;

import dev.bothy.platform.pg.BorrowedConnection;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.ConfiguredBundle;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.db.DatabaseConfiguration;
import liquibase.Liquibase;
import liquibase.database.jvm.JdbcConnection;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * The {@code db} command: Dropwizard's Liquibase commands ({@code migrate}, {@code status}, {@code
 * rollback}, ...) over Bothy's changelog and pool, connecting as {@code database.migrationUser}.
 * After a {@code migrate} that is not a dry run it records the migration in the instance record, on
 * the same connection.
 *
 * <p>Dropwizard's {@code MigrationsBundle} registers the plain command and offers no hook after
 * {@code migrate}; this bundle registers the same command with that hook.
 */
final class DbCommand extends io.dropwizard.migrations.DbCommand<BothyConfiguration> {
  private static final String DROPWIZARD_MIGRATIONS = "io.dropwizard.migrations.";
  // Liquibase's words when a changeset of raw SQL has no rollback statements.
  private static final String NO_ROLLBACK = "does not support automatic rollback";

  private BothyConfiguration configuration;

  private DbCommand(DatabaseConfiguration<BothyConfiguration> strategy) {
    super("db", strategy, BothyConfiguration.class, Migrator.CHANGELOG);
  }

  @Override
  protected void run(
      Bootstrap<BothyConfiguration> bootstrap, Namespace namespace, BothyConfiguration config)
      throws Exception {
    this.configuration = config;
    refuseTagNamedLikeTheFile(namespace);
    String subcommand = namespace.getString("subcommand");
    // Both need rollbacks, which no changeset has; refused before any database opens.
    if ("rollback".equals(subcommand)) {
      // Liquibase would print its rollback and errors on standard output, the command's answer.
      throw new NoRollback();
    }
    if ("test".equals(subcommand)) {
      // Liquibase's test migrates, rolls back and migrates again: it would stop after the first
      // step, the schema applied and no instance record written.
      throw new RollsForwardOnly();
    }
    // Progress on standard error, at the configured level; standard output is the answer.
    JobsCommand.logToStandardError(bootstrap, config, java.util.Optional.empty());
    super.run(bootstrap, namespace, config);
  }

  @Override
  public void run(Namespace namespace, Liquibase liquibase) throws Exception {
    super.run(namespace, liquibase);
    if ("migrate".equals(namespace.getString("subcommand"))
        && !Boolean.TRUE.equals(namespace.getBoolean("dry-run"))) {
      JdbcConnection connection = (JdbcConnection) liquibase.getDatabase().getConnection();
      MigrationRecorder.record(
          new BorrowedConnection(connection.getUnderlyingConnection()),
          configuration.database().txSettings());
    }
  }

  /** Adds the db subcommands, and the description to the list of {@code java -jar bothy.jar -h}. */
  @Override
  public void configure(net.sourceforge.argparse4j.inf.Subparser subparser) {
    super.configure(subparser);
    subparser.help(getDescription());
  }

  /**
   * Prints a bad configuration, a refused step or a missing option in one line, anything else with
   * its stack trace.
   */
  @Override
  public void onError(io.dropwizard.core.cli.Cli cli, Namespace namespace, Throwable e) {
    String command = "db " + namespace.getString("subcommand");
    if (isUsageError(e)) {
      cli.getStdErr()
          .println(
              command
                  + ": "
                  + e.getMessage()
                  + "; see java -jar bothy.jar "
                  + command
                  + " -h for the options");
      return;
    }
    if (insufficientPrivilege(e)) {
      cli.getStdErr()
          .println(
              command
                  + ": the role "
                  + (configuration == null ? "" : configuration.database().migrationUser() + " ")
                  + "of database.migrationUser lacks a right the changelog needs (SQLSTATE"
                  + " 42501); run the first migration as a superuser, or give the database to"
                  + " bothy_owner and migrate as it (README, Running with a real PostgreSQL)");
      return;
    }
    if (e instanceof TagLooksLikeTheFile) {
      cli.getStdErr().println(command + ": " + e.getMessage());
      return;
    }
    if (e instanceof RollsForwardOnly) {
      cli.getStdErr()
          .println(
              command
                  + ": Bothy's changesets carry no rollback, so the test of migrating, rolling"
                  + " back and migrating again cannot run; nothing was changed. db migrate"
                  + " --dry-run prints the SQL db migrate would run");
      return;
    }
    if (e instanceof NoRollback || rollbackImpossible(e)) {
      cli.getStdErr()
          .println(
              command
                  + ": Bothy's changesets carry no rollback, the schema rolls forward only; to go"
                  + " back, restore the database from the backup taken before db migrate and run"
                  + " the binary that matches it");
      return;
    }
    CommandErrors.print(cli, command, e);
  }

  /**
   * {@code db tag worker.yml} takes the file's name as the tag and, without a file, tags the
   * embedded default database in the working directory: a tag that names a configuration file, with
   * no file given, is refused before any database opens.
   */
  private static void refuseTagNamedLikeTheFile(Namespace namespace) {
    if (!"tag".equals(namespace.getString("subcommand")) || namespace.get("file") != null) {
      return;
    }
    // One argument (nargs 1): argparse keeps it in a list.
    java.util.List<Object> names = namespace.getList("tag-name");
    String tag = names == null || names.isEmpty() ? null : String.valueOf(names.get(0));
    if (tag != null
        && (tag.endsWith(".yml")
            || tag.endsWith(".yaml")
            || java.nio.file.Files.isRegularFile(java.nio.file.Path.of(tag)))) {
      throw new TagLooksLikeTheFile(tag);
    }
  }

  /** A tag name that is the configuration file's. */
  private static final class TagLooksLikeTheFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TagLooksLikeTheFile(String tag) {
      super(
          tag
              + " is the configuration file, not a tag name: give the file first and the tag name"
              + " after it (db tag "
              + tag
              + " NAME)",
          null,
          false,
          false);
    }
  }

  /** {@code db test} refused: its rollback step cannot run on Bothy's changesets. */
  private static final class RollsForwardOnly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RollsForwardOnly() {
      super("db test needs rollbacks, which Bothy's changesets do not have", null, false, false);
    }
  }

  /** {@code db rollback} refused: no changeset of Bothy's has rollback statements. */
  private static final class NoRollback extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoRollback() {
      super("Bothy's changesets carry no rollback", null, false, false);
    }
  }

  /** PostgreSQL's insufficient_privilege, at any depth of Liquibase's wrapping. */
  private static boolean insufficientPrivilege(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && "42501".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Liquibase's refusal to roll back a changeset without rollback statements, at any depth: its own
   * exception, or the failure it wraps that refusal in (raw SQL changesets).
   */
  private static boolean rollbackImpossible(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof liquibase.exception.RollbackImpossibleException
          || (t instanceof liquibase.exception.RollbackFailedException
              && String.valueOf(t.getMessage()).contains(NO_ROLLBACK))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Dropwizard's Liquibase subcommands check the options that argparse cannot (one of two required,
   * such as {@code --list} or {@code --force-release}) in their {@code run}, with an {@code
   * IllegalArgumentException}: a usage error, not a defect to report with a stack trace.
   */
  private static boolean isUsageError(Throwable e) {
    StackTraceElement[] trace = e.getStackTrace();
    return e instanceof IllegalArgumentException
        && e.getCause() == null
        && trace.length > 0
        && trace[0].getClassName().startsWith(DROPWIZARD_MIGRATIONS);
  }

  /**
   * The bundle that registers the {@code db} command.
   *
   * @return the bundle
   */
  static ConfiguredBundle<BothyConfiguration> bundle() {
    DatabaseConfiguration<BothyConfiguration> strategy =
        config ->
            new HikariDataSourceFactory(
                config.database(),
                HikariDataSourceFactory.Purpose.MIGRATION,
                "bothy-migrate",
                null,
                config.shutdown().totalTimeout().toJavaDuration());
    return new ConfiguredBundle<>() {
      @Override
      public void initialize(Bootstrap<?> bootstrap) {
        @SuppressWarnings("unchecked")
        Bootstrap<BothyConfiguration> typed = (Bootstrap<BothyConfiguration>) bootstrap;
        typed.addCommand(new DbCommand(strategy));
      }
    };
  }
}
