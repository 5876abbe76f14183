package dev.bothy.platform.pg;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorFields;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL 18 of the development default and of the tests (zonky binaries).
 *
 * <p>Data persists in a directory across starts. A lock file beside the directory keeps a second
 * process from opening the same data, and the port is checked before PostgreSQL starts, so both
 * mistakes fail with a message that names the configuration key instead of a corrupted directory or
 * a timeout. A postmaster orphaned by a process that was killed (SIGKILL) is stopped before the new
 * one starts.
 *
 * <p>The owner stops PostgreSQL with {@link #close()}, as the last step of its shutdown. A JVM
 * shutdown hook is the fallback: it waits up to the exit grace for the owner's close, then stops
 * PostgreSQL itself, so a SIGTERM never leaves an orphan {@code postgres} process and never pulls
 * the database from under components that are still finishing their work.
 *
 * <p>Every connection needs a password (D-SEC-2): a new data directory gets a generated one, kept
 * in its file {@value #PASSWORD_FILE} (mode 0600, in the data directory PostgreSQL keeps at 0700),
 * set for the superuser by {@code initdb} and checked with {@code scram-sha-256} for every role;
 * the server has no Unix socket, and a role Bothy logs in as gets the same password through {@link
 * #setPassword(String)}. So another local user, who can reach 127.0.0.1 but not the data directory,
 * cannot connect. A data directory of an earlier version, which trusted every loopback connection,
 * gets its password at its first start with this one.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  // The migrator's connections, like the pools', never carry a server error's row values.
  private static final Map<String, String> NO_ERROR_DETAIL =
      Map.of(Pools.LOG_SERVER_ERROR_DETAIL, "false");

  /**
   * Whether a commit waits for its WAL to reach the disk. The zonky library starts PostgreSQL with
   * {@code fsync} and {@code synchronous_commit} off, which loses answered writes when PostgreSQL
   * or the machine dies; the development default must not, while tests and benchmarks that throw
   * the data away take the speed.
   */
  public enum Durability {
    /** {@code fsync} and {@code synchronous_commit} on: an answered commit survives a crash. */
    DURABLE,
    /** Both off, as the library starts it: for data that is thrown away after the run. */
    THROWAWAY
  }

  /** The superuser of an embedded server; it logs in with {@link #password()}. */
  public static final String SUPERUSER = "postgres";

  /** The file in the data directory that holds the password of the roles Bothy logs in as. */
  public static final String PASSWORD_FILE = "bothy_password";

  // Every line needs scram-sha-256: the server listens on loopback only and has no socket, but a
  // line a person adds for a socket or another address still asks for a password (D-SEC-2).
  private static final String SCRAM_HBA =
      "# Written by Bothy (D-SEC-2): every connection needs the password in "
          + PASSWORD_FILE
          + ".\n"
          + "local all all scram-sha-256\n"
          + "host all all 127.0.0.1/32 scram-sha-256\n"
          + "host all all ::1/128 scram-sha-256\n"
          + "local replication all scram-sha-256\n"
          + "host replication all 127.0.0.1/32 scram-sha-256\n"
          + "host replication all ::1/128 scram-sha-256\n";

  private static final String SCRAM = "scram-sha-256";

  private final EmbeddedPostgres postgres;
  private final String password;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch closedByOwner = new CountDownLatch(1);
  private final Thread exitHook;

  private EmbeddedPostgresServer(
      EmbeddedPostgres postgres,
      String password,
      FileChannel lockChannel,
      FileLock lock,
      Duration exitGrace) {
    this.postgres = postgres;
    this.password = password;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.exitHook =
        new Thread(
            () -> {
              try {
                // The owner counts down only after its own stop finished: then there is
                // nothing left to do, and only one thread ever stops PostgreSQL.
                if (closedByOwner.await(exitGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                  return;
                }
                LOG.warn("embedded PostgreSQL not stopped by its owner in time, stopping it");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              stop();
            },
            "bothy-embedded-postgres-exit");
    Runtime.getRuntime().addShutdownHook(exitHook);
  }

  /**
   * Starts PostgreSQL on a data directory, creating it on first use.
   *
   * @param dataDirectory the data directory ({@code database.embedded.dataDirectory})
   * @param port the loopback port; 0 picks a free one ({@code database.embedded.port})
   * @param startupWait how long to wait for PostgreSQL to accept connections
   * @param exitGrace how long the JVM exit hook waits for {@link #close()} before it stops
   *     PostgreSQL itself; zero stops it at once when the JVM exits
   * @param durability whether commits are synced to disk ({@code database.embedded.durable})
   * @return the running server
   * @throws BothyException {@code unavailable} when another process holds the directory, the port
   *     is taken, or PostgreSQL does not start; the message names the key to change
   */
  public static EmbeddedPostgresServer start(
      Path dataDirectory,
      int port,
      Duration startupWait,
      Duration exitGrace,
      Durability durability) {
    Path data = dataDirectory.toAbsolutePath().normalize();
    Path lockFile = data.resolveSibling(data.getFileName() + ".lock");
    FileChannel channel = null;
    try {
      Files.createDirectories(data.getParent());
      channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = tryLock(channel);
      if (lock == null) {
        throw BothyException.unavailable(
            "the embedded PostgreSQL data directory "
                + data
                + " is in use by another process (database.embedded.dataDirectory), such as a"
                + " running Bothy role: stop it first, or reach the PostgreSQL it runs through"
                + " database.url; another directory would be another, empty installation",
            null);
      }
      stopOrphan(data, startupWait);
      int chosen = port == 0 ? freePort() : checkPortFree(port);
      long started = System.nanoTime();
      String synced = durability == Durability.DURABLE ? "on" : "off";
      Path binaries = privateDirectory(defaultBinariesDirectory());
      // The library runs initdb when the directory has no postgresql.conf.
      boolean fresh = !Files.exists(data.resolve("postgresql.conf"));
      String password = fresh ? generatePassword() : readPassword(data).orElse(null);
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              // Not the library's shared /tmp/embedded-pg (mode 777, no sticky bit): another local
              // user could put a PostgreSQL of theirs there for us to run (D-SEC-1).
              // The library opens its own folder to others (write for group and others), so it
              // goes inside ours, which no one else may enter.
              .setOverrideWorkingDirectory(binaries.resolve("pg").toFile())
              .setDataDirectory(data)
              .setCleanDataDirectory(false)
              .setPort(chosen)
              .setPGStartupWait(startupWait)
              // Our own hook orders the stop after the owner's shutdown (see the class comment).
              .setRegisterShutdownHook(false)
              .setServerConfig("listen_addresses", "127.0.0.1")
              // No Unix socket: the default one in /tmp is open to every local user (D-SEC-2).
              .setServerConfig("unix_socket_directories", "")
              // A -c option after the library's -F (fsync off) wins over it.
              .setServerConfig("fsync", synced)
              .setServerConfig("synchronous_commit", synced)
              // The server's output joins Bothy's log. A failing statement is the application's
              // to report (with its SQLSTATE, never its text or values): the server logs LOG,
              // FATAL and PANIC lines (start, stop, crashes), not ERROR lines or statements.
              .setServerConfig("log_min_messages", "log")
              .setServerConfig("log_min_error_statement", "panic");
      if (password != null) {
        // The library checks the started server with a query of its own, which needs it too.
        builder.setConnectConfig("password", password);
      }
      if (!fresh && password != null) {
        // Bothy owns the rules: whatever left another line (an edit, a start of an earlier
        // directory killed halfway) is replaced while the server is down (D-SEC-2).
        writeScramRules(data);
      }
      Path passwordForInitdb = null;
      EmbeddedPostgres postgres;
      try {
        if (fresh) {
          // initdb sets the superuser's password and writes scram-sha-256 for every line, so
          // the server never runs a moment without passwords. Its option -A trust comes first
          // on the library's command line; these later ones win.
          passwordForInitdb = privateFile(binaries, password);
          builder
              .setLocaleConfig("pwfile", passwordForInitdb.toString())
              .setLocaleConfig("auth-local", SCRAM)
              .setLocaleConfig("auth-host", SCRAM);
        }
        postgres = startOrStopLeftover(builder, data, startupWait);
      } catch (IOException | RuntimeException e) {
        if (fresh && Files.exists(data.resolve("postgresql.conf"))) {
          // initdb ran and set the password: keep it, or no later start could log in.
          writePassword(data, password);
        }
        throw e;
      } finally {
        if (passwordForInitdb != null) {
          Files.deleteIfExists(passwordForInitdb);
        }
      }
      try {
        if (fresh) {
          writePassword(data, password);
        } else if (password == null) {
          password = secureEarlierDirectory(data, chosen);
          // A restart ends every session opened while the old rules trusted it, and starts
          // the server with the new ones.
          postgres.close();
          builder.setConnectConfig("password", password);
          postgres = startOrStopLeftover(builder, data, startupWait);
        }
      } catch (IOException | RuntimeException | SQLException e) {
        try {
          postgres.close();
        } catch (IOException closeFailed) {
          e.addSuppressed(closeFailed);
        }
        throw BothyException.unavailable(
            "cannot set the password of the embedded PostgreSQL on "
                + data
                + " (database.embedded.dataDirectory): "
                + e.getMessage(),
            e);
      }
      LOG.info(
          "embedded PostgreSQL started: port={} data_directory={} durable={} elapsed_ms={}",
          chosen,
          data,
          durability == Durability.DURABLE,
          (System.nanoTime() - started) / 1_000_000);
      return new EmbeddedPostgresServer(postgres, password, channel, lock, exitGrace);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      if (e instanceof BothyException bothy) {
        throw bothy;
      }
      throw BothyException.unavailable(
          "the embedded PostgreSQL did not start on "
              + data
              + " (database.embedded.dataDirectory): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Starts the server; when the start fails, stops the postmaster it may have left behind. The
   * library launches the postmaster and then waits for it to answer; when that wait gives up (a
   * {@code database.embedded.startupWait} too short for a busy machine) it throws and leaves the
   * postmaster running, unowned, until the next start on the directory.
   */
  private static EmbeddedPostgres startOrStopLeftover(
      EmbeddedPostgres.Builder builder, Path data, Duration startupWait) throws IOException {
    try {
      return builder.start();
    } catch (IOException | RuntimeException e) {
      try {
        stopLeftover(data, startupWait);
      } catch (IOException | RuntimeException stopFailed) {
        e.addSuppressed(stopFailed);
      }
      throw e;
    }
  }

  /**
   * Stops the postmaster a failed start left: a smart shutdown first, then, if it is still there
   * after the wait, a kill. It never served anyone, so nothing is lost, and a kill of a postmaster
   * that does not stop is what an operator would do next anyway.
   */
  private static void stopLeftover(Path data, Duration wait) throws IOException {
    Optional<ProcessHandle> leftover = postmasterOf(data);
    if (leftover.isEmpty()) {
      return;
    }
    ProcessHandle postmaster = leftover.get();
    LOG.warn(
        "stopping the embedded PostgreSQL of a start that failed: pid={} data_directory={}",
        postmaster.pid(),
        data);
    postmaster.destroy();
    if (!exitedWithin(postmaster, wait)) {
      postmaster.destroyForcibly();
      exitedWithin(postmaster, wait);
    }
  }

  private static boolean exitedWithin(ProcessHandle process, Duration wait) {
    try {
      process.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      throw BothyException.unavailable("waiting for a PostgreSQL to stop failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BothyException.unavailable("interrupted while stopping a PostgreSQL", e);
    }
  }

  /** The live postmaster serving the data directory, per its {@code postmaster.pid}. */
  private static Optional<ProcessHandle> postmasterOf(Path data) throws IOException {
    Path pidFile = data.resolve("postmaster.pid");
    if (!Files.isRegularFile(pidFile)) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      // A torn pid file: PostgreSQL itself decides whether it is stale.
      return Optional.empty();
    }
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(
            p ->
                p.info()
                    .commandLine()
                    .map(c -> c.contains("postgres") && c.contains(data.toString()))
                    .orElse(false));
  }

  /**
   * Stops a PostgreSQL left running on the data directory by a process that was killed without its
   * shutdown hooks (SIGKILL, a crash). Holding the lock proves no live Bothy process owns the
   * directory, so a postmaster that still serves it is an orphan; left alone, it would keep the new
   * server from starting.
   */
  private static void stopOrphan(Path data, Duration wait) throws IOException {
    Optional<ProcessHandle> found = postmasterOf(data);
    if (found.isEmpty()) {
      return;
    }
    ProcessHandle orphan = found.get();
    LOG.warn(
        "stopping an orphan embedded PostgreSQL left by a process that did not stop"
            + " cleanly: pid={} data_directory={}",
        orphan.pid(),
        data);
    // SIGTERM is PostgreSQL's smart shutdown; the killed process's clients are gone.
    orphan.destroy();
    if (!exitedWithin(orphan, wait)) {
      throw BothyException.unavailable(
          "an orphan embedded PostgreSQL (pid "
              + orphan.pid()
              + ") on "
              + data
              + " did not stop within database.embedded.startupWait; stop it by hand",
          null);
    }
  }

  /**
   * Whether another process (or this one) runs the embedded server on a data directory: tools such
   * as the {@code jobs} command then connect to it instead of starting their own.
   *
   * @param dataDirectory {@code database.embedded.dataDirectory}
   * @return true when the directory's lock file is held
   */
  public static boolean inUse(Path dataDirectory) {
    Path data = dataDirectory.toAbsolutePath().normalize();
    Path lockFile = data.resolveSibling(data.getFileName() + ".lock");
    if (!Files.exists(lockFile)) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = tryLock(channel);
      if (lock == null) {
        return true;
      }
      lock.release();
      return false;
    } catch (IOException e) {
      throw BothyException.unavailable(
          "cannot read the lock file " + lockFile + " (database.embedded.dataDirectory)", e);
    }
  }

  /**
   * Reads the port of the server running on a data directory from its {@code postmaster.pid}, whose
   * fourth line PostgreSQL writes with the port it listens on: the port a tool must use when the
   * owner picked a free one ({@code database.embedded.port} 0).
   *
   * @param dataDirectory {@code database.embedded.dataDirectory}
   * @return the port, or empty when no server runs there or the file is torn
   */
  public static OptionalInt runningPort(Path dataDirectory) {
    Path pidFile = dataDirectory.toAbsolutePath().normalize().resolve("postmaster.pid");
    try {
      // ISO-8859-1 reads any byte: a data directory line in another encoding cannot fail it.
      List<String> lines = Files.readAllLines(pidFile, StandardCharsets.ISO_8859_1);
      return OptionalInt.of(Integer.parseInt(lines.get(3).trim()));
    } catch (IOException | NumberFormatException | IndexOutOfBoundsException e) {
      // No server (no file), or a file being written or removed: the configured port it is.
      return OptionalInt.empty();
    }
  }

  /**
   * Reads the password of the roles Bothy logs in as on an embedded data directory, for a tool that
   * connects to the server another process runs there (the {@code jobs} command).
   *
   * @param dataDirectory {@code database.embedded.dataDirectory}
   * @return the password, or empty when the directory has none yet (a directory of an earlier
   *     version that no server of this version has started)
   * @throws BothyException {@code unavailable} naming the file when it cannot be read
   */
  public static Optional<String> readPassword(Path dataDirectory) {
    Path file = dataDirectory.toAbsolutePath().normalize().resolve(PASSWORD_FILE);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try {
      String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
      if (text.isEmpty()) {
        throw new IOException("the file is empty");
      }
      return Optional.of(text);
    } catch (IOException e) {
      throw BothyException.unavailable(
          "cannot read the embedded PostgreSQL's password file "
              + file
              + " (database.embedded.dataDirectory): "
              + e.getMessage(),
          e);
    }
  }

  /** 32 random bytes, URL-safe base64: no character a connection string or a shell would change. */
  private static String generatePassword() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Writes text to a new file only this user may read, in a directory only this user may enter. */
  private static Path privateFile(Path dir, String text) throws IOException {
    Path file =
        Files.createTempFile(
            dir,
            "bothy-pw",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
      out.write(java.nio.ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.US_ASCII)));
      // On disk before the move that publishes it: a crash leaves the old file or the new one.
      out.force(true);
    }
    return file;
  }

  /** Makes a rename in the directory durable. */
  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /** Keeps the password in the data directory; the move makes a torn file impossible. */
  private static void writePassword(Path data, String password) throws IOException {
    Path written = privateFile(data, password);
    Files.move(
        written,
        data.resolve(PASSWORD_FILE),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(data);
  }

  /**
   * Gives a data directory of an earlier version, whose server trusted every loopback connection, a
   * password: set for the superuser over that trust, kept in the password file, then every line of
   * {@code pg_hba.conf} set to {@code scram-sha-256} and the server told to reload it.
   */
  private static String secureEarlierDirectory(Path data, int port)
      throws IOException, SQLException {
    String password = generatePassword();
    PGSimpleDataSource trusted = dataSource(port, SUPERUSER, "postgres", null);
    try (Connection c = trusted.getConnection()) {
      c.unwrap(PGConnection.class).alterUserPassword(SUPERUSER, password.toCharArray(), SCRAM);
    }
    // The password first: a start killed before the rules are written finds the file and
    // writes the rules before its server runs.
    writePassword(data, password);
    writeScramRules(data);
    LOG.warn(
        "embedded PostgreSQL data directory of an earlier version: every connection now needs the"
            + " password in {}/{}; a tool that connected without a password needs it now, and"
            + " a directory that ran on a host with other users was open to them before",
        data,
        PASSWORD_FILE);
    return password;
  }

  /** Replaces {@code pg_hba.conf} with Bothy's rules unless it holds them already. */
  private static void writeScramRules(Path data) throws IOException {
    Path hba = data.resolve("pg_hba.conf");
    if (Files.exists(hba) && Files.readString(hba, StandardCharsets.UTF_8).equals(SCRAM_HBA)) {
      return;
    }
    Path written = privateFile(data, SCRAM_HBA.stripTrailing());
    Files.move(written, hba, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(data);
  }

  private static PGSimpleDataSource dataSource(
      int port, String user, String database, String password) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName(database);
    ds.setUser(user);
    if (password != null) {
      ds.setPassword(password);
    }
    NO_ERROR_DETAIL.forEach(
        (k, v) -> {
          try {
            ds.setProperty(k, v);
          } catch (SQLException e) {
            throw new IllegalStateException("unknown driver property " + k, e);
          }
        });
    return ds;
  }

  /** Where PostgreSQL is unpacked: this user's own directory in the temporary directory. */
  static Path defaultBinariesDirectory() {
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    return Path.of(System.getProperty("java.io.tmpdir"), "bothy-embedded-pg-" + user);
  }

  /**
   * Creates the directory for this user alone (0700), or checks that the one there is a real
   * directory of this user that no one else may write to or read.
   *
   * @param dir the directory
   * @return the directory
   * @throws BothyException {@code unavailable} naming the directory when it is not private
   */
  static Path privateDirectory(Path dir) throws IOException {
    try {
      Files.createDirectory(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (FileAlreadyExistsException exists) {
      // Checked below, whoever made it.
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw notPrivate(dir, "is not a directory");
    }
    Path probe = Files.createTempFile("bothy-owner", ".probe");
    UserPrincipal me;
    try {
      me = Files.getOwner(probe);
    } finally {
      Files.deleteIfExists(probe);
    }
    if (!Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).equals(me)) {
      throw notPrivate(dir, "belongs to another user");
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
    if (!PosixFilePermissions.fromString("rwx------").containsAll(perms)) {
      throw notPrivate(
          dir, "is open to other users (" + PosixFilePermissions.toString(perms) + ")");
    }
    return dir;
  }

  private static BothyException notPrivate(Path dir, String why) {
    return BothyException.unavailable(
        "the directory for the embedded PostgreSQL binaries "
            + dir
            + " "
            + why
            + ": remove it (Bothy creates it again, for this user only)",
        null);
  }

  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // The lock is held by this very JVM.
      return null;
    }
  }

  private static int checkPortFree(int port) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    } catch (IOException e) {
      throw BothyException.unavailable(
          "port "
              + port
              + " on 127.0.0.1 is taken (database.embedded.port): stop what uses it or"
              + " choose another port",
          e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }

  /**
   * Returns the port PostgreSQL listens on.
   *
   * @return the port
   */
  public int port() {
    return postgres.getPort();
  }

  /**
   * Returns a JDBC URL for a database and user of this server.
   *
   * @param database the database name
   * @return {@code jdbc:postgresql://127.0.0.1:<port>/<database>}
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /**
   * Returns an unpooled data source of the superuser on the {@code postgres} database.
   *
   * @return the data source
   */
  public DataSource superuserDataSource() {
    return superuserDataSource("postgres");
  }

  /**
   * Returns an unpooled data source of the superuser on a database.
   *
   * @param database the database name
   * @return the data source
   */
  public DataSource superuserDataSource(String database) {
    return dataSource(port(), SUPERUSER, database, password);
  }

  /**
   * Returns the password of the superuser and of every role given it through {@link
   * #setPassword(String)}; kept in the data directory's {@value #PASSWORD_FILE}. Never log it.
   *
   * @return the password
   */
  public String password() {
    return password;
  }

  /**
   * Gives a role the server's password, so it can log in over loopback (every connection needs one,
   * D-SEC-2). The password travels as a {@code scram-sha-256} verifier computed here, so neither
   * the statement nor the server's log holds it.
   *
   * @param role an existing role, such as {@code database.user}
   * @throws BothyException {@code unavailable} naming the role when it cannot be set (the role does
   *     not exist)
   */
  public void setPassword(String role) {
    try (Connection c = superuserDataSource().getConnection()) {
      c.unwrap(PGConnection.class).alterUserPassword(role, password.toCharArray(), SCRAM);
    } catch (SQLException e) {
      throw BothyException.unavailable(
          "cannot set the password of the role "
              + role
              + " on the embedded PostgreSQL (check database.user): "
              + e.getMessage(),
          e);
    }
  }

  /** Stops PostgreSQL and releases the data directory. Idempotent. */
  @Override
  public void close() {
    try {
      stop();
    } finally {
      closedByOwner.countDown();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(exitHook);
    } catch (IllegalStateException e) {
      // The JVM is already exiting; the hook finds the server stopped.
    }
  }

  private void stop() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      postgres.close();
      LOG.info("embedded PostgreSQL stopped");
    } catch (IOException e) {
      LOG.warn(
          "embedded PostgreSQL did not stop cleanly: error.type={}",
          ErrorFields.type(e),
          ErrorFields.redacted(e));
    } finally {
      try {
        if (lock.isValid()) {
          lock.release();
        }
      } catch (IOException e) {
        LOG.warn(
            "could not release the embedded data directory lock: error.type={}",
            ErrorFields.type(e),
            ErrorFields.redacted(e));
      }
      closeQuietly(lockChannel);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing the lock file failed: error.type={}", ErrorFields.type(e));
    }
  }
}
