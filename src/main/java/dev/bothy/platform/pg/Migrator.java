package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * Applies Bothy's Liquibase changelog, packaged in the jar under {@value #CHANGELOG}.
 *
 * <p>Used by the embedded default at start and by the test fixture; a real database is migrated
 * only by the {@code db migrate} command, which runs the same changelog.
 */
public final class Migrator {
  /** The classpath location of the master changelog. */
  public static final String CHANGELOG = "db/changelog/master.xml";

  /**
   * The schema version this binary knows: the number of its newest changeset ({@code
   * NNNN-what.sql}). A test keeps it equal to the changelog.
   */
  public static final long SCHEMA_VERSION = 13;

  /**
   * The oldest server version allowed to run against the schema these changesets produce, recorded
   * by {@code db migrate} in {@code instance.min_server_version}. Normally the previous release; a
   * deliberate break sets this binary's own version; before the first release it equals the current
   * version.
   */
  public static final String MIN_SERVER_VERSION = "0.1.0-SNAPSHOT";

  // Liquibase's bookkeeping table is not part of the generated model (CodeGen excludes it), so
  // its table and columns are named here. Changeset ids start with their number: 0002-instance.
  private static final Table<?> CHANGELOG_TABLE = DSL.table(DSL.name("databasechangelog"));
  private static final Field<String> CHANGESET_ID = DSL.field(DSL.name("id"), String.class);
  private static final Field<String> CHANGESET_AUTHOR = DSL.field(DSL.name("author"), String.class);
  private static final Field<Integer> CHANGESET_ORDER =
      DSL.field(DSL.name("orderexecuted"), Integer.class);
  private static final Pattern LEADING_NUMBER = Pattern.compile("^[0-9]+");

  private Migrator() {}

  /**
   * Reads the schema version a database has: the number of the newest Bothy changeset applied.
   *
   * @param dataSource a data source of a role that may read {@code databasechangelog} (the owner)
   * @return the version, 0 when nothing was applied
   * @throws BothyException {@code unavailable} when the database cannot be read
   */
  public static long appliedSchemaVersion(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      return DSL
          .using(connection, SQLDialect.POSTGRES)
          .select(CHANGESET_ID)
          .from(CHANGELOG_TABLE)
          .where(CHANGESET_AUTHOR.eq("bothy"))
          .fetch(CHANGESET_ID)
          .stream()
          .map(LEADING_NUMBER::matcher)
          .filter(Matcher::find)
          .mapToLong(m -> Long.parseLong(m.group()))
          .max()
          .orElse(0L);
    } catch (SQLException | DataAccessException e) {
      throw BothyException.unavailable("cannot read the applied schema version", e);
    }
  }

  /**
   * Applies every pending changeset; a database that is up to date is left untouched.
   *
   * <p>Liquibase's messages go to its loggers, never to standard output: the caller logs one line
   * with the returned count, and the default logging keeps Liquibase's own lines at WARN.
   *
   * @param dataSource a data source of a role that may create roles and tables (a superuser in the
   *     embedded default and in tests)
   * @return the ids of the changesets this call applied, in the order they ran; empty for a
   *     database that was up to date
   * @throws BothyException {@code unavailable} when the database cannot be reached or a changeset
   *     fails; Liquibase's own transaction handling leaves no half-applied changeset
   */
  public static List<String> migrate(DataSource dataSource) {
    List<String> before = appliedChangesets(dataSource);
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      Scope.child(
          Map.of(
              Scope.Attr.resourceAccessor.name(),
              new ClassLoaderResourceAccessor(Migrator.class.getClassLoader()),
              // "Running Changeset: ..." and the summary go to the log, not to standard output.
              Scope.Attr.ui.name(),
              new LoggerUIService(),
              "liquibase.analytics.enabled",
              false),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                  .addArgumentValue(
                      ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                  .execute());
    } catch (SQLException e) {
      throw BothyException.unavailable("cannot connect to the database to migrate it", e);
    } catch (Exception e) {
      throw BothyException.unavailable("database migration failed: " + e.getMessage(), e);
    }
    List<String> applied = new ArrayList<>(appliedChangesets(dataSource));
    applied.removeAll(before);
    return List.copyOf(applied);
  }

  /**
   * The ids of the changesets a database records, in the order they ran; empty before the first
   * migration. Asks the catalog first, so a fresh database sees no failing statement (which its
   * server would log as an ERROR).
   */
  private static List<String> appliedChangesets(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      DSLContext db = DSL.using(connection, SQLDialect.POSTGRES);
      if (db.meta().getTables(CHANGELOG_TABLE.getName()).isEmpty()) {
        return List.of();
      }
      return db.select(CHANGESET_ID)
          .from(CHANGELOG_TABLE)
          .orderBy(CHANGESET_ORDER)
          .fetch(CHANGESET_ID);
    } catch (SQLException | DataAccessException e) {
      throw BothyException.unavailable("cannot read the applied changesets", e);
    }
  }
}
