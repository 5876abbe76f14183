package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
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

/**
 * Applies Bothy's Liquibase changelog, packaged in the jar under {@value #CHANGELOG}.
 *
 * <p>Used by the embedded default at start and by the test fixture; a real database is migrated
 * only by the {@code db migrate} command, which runs the same changelog.
 */
public final class Migrator {
  /** The classpath location of the master changelog. */
  public static final String CHANGELOG = "db/changelog/master.xml";

  private Migrator() {}

  /**
   * Applies every pending changeset; a database that is up to date is left untouched.
   *
   * @param dataSource a data source of a role that may create roles and tables (a superuser in the
   *     embedded default and in tests)
   * @throws BothyException {@code unavailable} when the database cannot be reached or a changeset
   *     fails; Liquibase's own transaction handling leaves no half-applied changeset
   */
  public static void migrate(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      Scope.child(
          Map.of(
              Scope.Attr.resourceAccessor.name(),
              new ClassLoaderResourceAccessor(Migrator.class.getClassLoader()),
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
  }
}
