package dev.bothy.platform.pg;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source over one connection that someone else owns (the {@code db} command's Liquibase
 * connection), so a unit of work can run on it: closing a handed-out connection restores its
 * auto-commit mode and leaves it open.
 */
public final class BorrowedConnection implements DataSource {
  private final Connection connection;

  /**
   * Wraps a connection.
   *
   * @param connection the owner's open connection
   */
  public BorrowedConnection(Connection connection) {
    this.connection = connection;
  }

  /**
   * Returns a handle on the borrowed connection whose {@code close()} gives it back.
   *
   * @return the handle
   * @throws SQLException when the connection's auto-commit mode cannot be read
   */
  @Override
  public Connection getConnection() throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close") && method.getParameterCount() == 0) {
                connection.setAutoCommit(autoCommit);
                return null;
              }
              try {
                return method.invoke(connection, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * Not supported: the borrowed connection has its own user.
   *
   * @param username ignored
   * @param password ignored
   * @return never
   * @throws SQLFeatureNotSupportedException always
   */
  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("a borrowed connection has its own user");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {
    // No driver logging for a borrowed connection.
  }

  @Override
  public void setLoginTimeout(int seconds) {
    // The connection is open already.
  }

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no parent logger");
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException("not a wrapper of " + iface.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return iface.isInstance(this);
  }
}
