package dev.bothy.platform.pg;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/** Checks a pool outside any unit of work: readiness and the start log. */
public final class PgProbe {
  private PgProbe() {}

  /**
   * Tells whether the database answers within a timeout.
   *
   * @param dataSource the pool
   * @param timeout the longest wait for the answer, at least one second (JDBC's unit)
   * @return true when a connection is valid
   */
  public static boolean answers(DataSource dataSource, Duration timeout) {
    try (Connection connection = dataSource.getConnection()) {
      return connection.isValid((int) Math.max(1, timeout.toSeconds()));
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Describes the database a pool reaches, for the start log.
   *
   * @param dataSource the pool
   * @return for example {@code "server_version=18.6 user=bothy_app"}
   * @throws SQLException when the database cannot be reached
   */
  public static String describe(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      return "server_version=" + meta.getDatabaseProductVersion() + " user=" + meta.getUserName();
    }
  }
}
