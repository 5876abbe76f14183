package dev.bothy.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.instance.adapters.postgres.JooqInstanceRepository;
import dev.bothy.instance.app.InstanceService;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.platform.pg.HookRegistry;
import dev.bothy.platform.pg.Migrator;
import dev.bothy.platform.pg.PgUnitOfWork;
import dev.bothy.platform.pg.TxSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The database fixture of Bothy's tests (DESIGN.md section 12).
 *
 * <p>One PostgreSQL per JVM: an embedded PostgreSQL 18, or the server of {@code
 * BOTHY_TEST_DATABASE_URL} (a superuser JDBC URL) when that variable is set. A template database is
 * migrated once per JVM and holds the instance record as after {@code db migrate}; every test class
 * gets a fresh copy ({@code CREATE DATABASE ... TEMPLATE}). The session time zone is {@value
 * #SESSION_TIME_ZONE}, not UTC, on purpose. Pools connect as {@code bothy_app} unless a test asks
 * for the owner or the superuser.
 *
 * <pre>{@code
 * @RegisterExtension static final PgExtension PG = new PgExtension();
 * ... PG.app() ...
 * }</pre>
 */
public final class PgExtension implements BeforeAllCallback, AfterAllCallback {
  /** The session time zone of every test connection: far from UTC, with a 45-minute offset. */
  public static final String SESSION_TIME_ZONE = "Pacific/Chatham";

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static Server server;

  private String database;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private HikariDataSource app;
  private HikariDataSource owner;

  /** Creates the extension; register it as a static field. */
  public PgExtension() {}

  @Override
  public void beforeAll(ExtensionContext context) throws SQLException {
    Server s = server();
    database = "bothy_test_" + DATABASES.incrementAndGet() + "_" + s.suffix;
    s.execute("CREATE DATABASE " + database + " TEMPLATE " + s.template);
    app = pool("bothy_app");
    owner = pool("bothy_owner");
  }

  @Override
  public void afterAll(ExtensionContext context) throws SQLException {
    pools.forEach(HikariDataSource::close);
    pools.clear();
    server().execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }

  /**
   * Returns the pool of the runtime role {@code bothy_app} on this class's database.
   *
   * @return the pool
   */
  public DataSource app() {
    return app;
  }

  /**
   * Returns the pool of the owner role {@code bothy_owner} on this class's database.
   *
   * @return the pool
   */
  public DataSource owner() {
    return owner;
  }

  /**
   * Returns an unpooled data source of the superuser on this class's database.
   *
   * @return the data source
   */
  public DataSource superuser() {
    return server().dataSource(database, null);
  }

  /**
   * Returns a JDBC URL of a database of an embedded server that carries the server's password
   * (D-SEC-2), for a test or a benchmark that hands one URL to a pool, a process or a configuration
   * file; the roles need {@link #giveRolesThePassword} first.
   *
   * @param server the server
   * @param database the database
   * @return the URL
   */
  public static String urlWithPassword(EmbeddedPostgresServer server, String database) {
    return server.jdbcUrl(database) + "?password=" + server.password();
  }

  /**
   * Gives the roles the migration creates ({@code bothy_app}, {@code bothy_owner}) the embedded
   * server's password, as a role does when it starts on the embedded server (D-SEC-2).
   *
   * @param server a migrated server
   */
  public static void giveRolesThePassword(EmbeddedPostgresServer server) {
    server.setPassword("bothy_app");
    server.setPassword("bothy_owner");
  }

  /**
   * Returns the password every role logs in with on the embedded server (D-SEC-2), or null on a
   * server of {@code BOTHY_TEST_DATABASE_URL}, whose roles log in as that server allows.
   *
   * @return the password, or null
   */
  public String password() {
    return server().urlPassword;
  }

  /**
   * Opens an extra pool of a role on this class's database, closed after the class.
   *
   * @param role the role
   * @param maxPoolSize its size
   * @return the pool
   */
  public HikariDataSource pool(String role, int maxPoolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl());
    config.setUsername(role);
    config.setMaximumPoolSize(maxPoolSize);
    config.setPoolName("test-" + role);
    config.setConnectionInitSql("SET TIME ZONE '" + SESSION_TIME_ZONE + "'");
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  private HikariDataSource pool(String role) {
    return pool(role, 8);
  }

  /**
   * Returns the JDBC URL of this class's database. On the embedded server it carries the password
   * every role logs in with (D-SEC-2), so add parameters with {@code &}; on a server of {@code
   * BOTHY_TEST_DATABASE_URL} it carries no credentials.
   *
   * @return the URL
   */
  public String jdbcUrl() {
    return server().urlOf(database);
  }

  /**
   * Creates an extra, empty database on the test server (not a copy of the template), dropped with
   * the JVM's server.
   *
   * @param ownerRole the owner of the new database
   * @return the JDBC URL of the new database
   */
  public String createEmptyDatabase(String ownerRole) {
    Server s = server();
    String name = "bothy_empty_" + DATABASES.incrementAndGet() + "_" + s.suffix;
    try {
      s.execute("CREATE DATABASE " + name + " OWNER " + ownerRole);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return s.urlOf(name);
  }

  /**
   * Writes the instance record into this class's database as {@code db migrate} does (for tests
   * that removed or changed it).
   */
  public void recordMigration() {
    recordInstance(owner);
  }

  /**
   * Writes the instance record of the current schema version, as {@code db migrate} does after the
   * changesets, so a role's start check finds it.
   *
   * @param dataSource a data source of the migrated database with the rights of its owner
   */
  public static void recordInstance(DataSource dataSource) {
    new InstanceService(
            new PgUnitOfWork(
                dataSource,
                new TxSettings(
                    Duration.ofSeconds(30),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(30),
                    1,
                    Duration.ofMillis(1),
                    Duration.ofMillis(1)),
                new HookRegistry(),
                d -> {},
                new java.util.Random()),
            new JooqInstanceRepository())
        .recordMigration(Migrator.SCHEMA_VERSION, Migrator.MIN_SERVER_VERSION);
  }

  /**
   * Runs a query and returns its first column as text, row by row: for tests that compare what the
   * catalog says with what they expect.
   *
   * @param dataSource where to run it
   * @param sql the query
   * @return the first column of each row, in the query's order
   * @throws SQLException when the query fails
   */
  public static List<String> rows(DataSource dataSource, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  /**
   * Runs a query that answers one number: for tests that count rows or read a cursor.
   *
   * @param dataSource where to run it
   * @param sql the query, whose first row's first column is a number
   * @return that number
   * @throws SQLException when the query fails or answers no row
   */
  public static long scalar(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        throw new SQLException("the query answered no row: " + sql);
      }
      return rs.getLong(1);
    }
  }

  private static synchronized Server server() {
    if (server == null) {
      server = Server.start();
    }
    return server;
  }

  /** The PostgreSQL server of this JVM and its migrated template. */
  private static final class Server {
    private final String suffix =
        UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
    private final String template = "bothy_template_" + suffix;
    private final String baseUrl;
    private final String user;
    private final String password;
    // The embedded server's one password for every role (D-SEC-2), carried in each URL so that
    // tests handing a URL to a pool, a child process or a configuration file log in with it.
    private final String urlPassword;

    private Server(String baseUrl, String user, String password, String urlPassword) {
      this.baseUrl = baseUrl;
      this.user = user;
      this.password = password;
      this.urlPassword = urlPassword;
    }

    static Server start() {
      String external = System.getenv("BOTHY_TEST_DATABASE_URL");
      Server s;
      EmbeddedPostgresServer embeddedServer = null;
      if (external != null && !external.isBlank()) {
        PGSimpleDataSource probe = new PGSimpleDataSource();
        probe.setURL(external);
        String host = probe.getServerNames()[0];
        int port = probe.getPortNumbers()[0] > 0 ? probe.getPortNumbers()[0] : 5432;
        s =
            new Server(
                "jdbc:postgresql://" + host + ":" + port + "/",
                probe.getUser(),
                probe.getPassword(),
                null);
      } else {
        EmbeddedPostgresServer embedded;
        try {
          Path dir = Files.createTempDirectory("bothy-test-pg");
          embedded =
              EmbeddedPostgresServer.start(
                  dir.resolve("data"),
                  0,
                  Duration.ofSeconds(60),
                  Duration.ZERO,
                  EmbeddedPostgresServer.Durability.THROWAWAY);
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
        // The server's exit hook stops it when the test JVM ends.
        s =
            new Server(
                "jdbc:postgresql://127.0.0.1:" + embedded.port() + "/",
                EmbeddedPostgresServer.SUPERUSER,
                embedded.password(),
                embedded.password());
        embeddedServer = embedded;
      }
      try {
        s.execute("CREATE DATABASE " + s.template);
        DataSource template = s.dataSource(s.template, null);
        Migrator.migrate(template);
        if (embeddedServer != null) {
          giveRolesThePassword(embeddedServer);
        }
        // As db migrate does after the changesets: the instance record of this schema.
        recordInstance(template);
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        s.execute("DROP DATABASE IF EXISTS " + s.template);
                      } catch (SQLException e) {
                        // The embedded server may be gone already; nothing to clean then.
                      }
                    }));
      } catch (SQLException e) {
        throw new IllegalStateException("cannot prepare the test template database", e);
      }
      return s;
    }

    String urlOf(String database) {
      return urlPassword == null
          ? baseUrl + database
          : baseUrl + database + "?password=" + urlPassword;
    }

    DataSource dataSource(String database, String role) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(urlOf(database));
      ds.setUser(role == null ? user : role);
      if (role == null && password != null) {
        ds.setPassword(password);
      }
      return ds;
    }

    void execute(String sql) throws SQLException {
      try (Connection c = dataSource("postgres", null).getConnection();
          Statement st = c.createStatement()) {
        st.execute(sql);
      }
    }
  }
}
