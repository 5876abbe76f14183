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
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
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

  /** The superuser of an embedded server; trust authentication on loopback. */
  public static final String SUPERUSER = "postgres";

  private final EmbeddedPostgres postgres;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch closedByOwner = new CountDownLatch(1);
  private final Thread exitHook;

  private EmbeddedPostgresServer(
      EmbeddedPostgres postgres, FileChannel lockChannel, FileLock lock, Duration exitGrace) {
    this.postgres = postgres;
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
      EmbeddedPostgres postgres =
          EmbeddedPostgres.builder()
              // Not the library's shared /tmp/embedded-pg (mode 777, no sticky bit): another local
              // user could put a PostgreSQL of theirs there for us to run (D-SEC-1).
              // The library opens its own folder to others (write for group and others), so it
              // goes inside ours, which no one else may enter.
              .setOverrideWorkingDirectory(
                  privateDirectory(defaultBinariesDirectory()).resolve("pg").toFile())
              .setDataDirectory(data)
              .setCleanDataDirectory(false)
              .setPort(chosen)
              .setPGStartupWait(startupWait)
              // Our own hook orders the stop after the owner's shutdown (see the class comment).
              .setRegisterShutdownHook(false)
              .setServerConfig("listen_addresses", "127.0.0.1")
              // A -c option after the library's -F (fsync off) wins over it.
              .setServerConfig("fsync", synced)
              .setServerConfig("synchronous_commit", synced)
              // The server's output joins Bothy's log. A failing statement is the application's
              // to report (with its SQLSTATE, never its text or values): the server logs LOG,
              // FATAL and PANIC lines (start, stop, crashes), not ERROR lines or statements.
              .setServerConfig("log_min_messages", "log")
              .setServerConfig("log_min_error_statement", "panic")
              .start();
      LOG.info(
          "embedded PostgreSQL started: port={} data_directory={} durable={} elapsed_ms={}",
          chosen,
          data,
          durability == Durability.DURABLE,
          (System.nanoTime() - started) / 1_000_000);
      return new EmbeddedPostgresServer(postgres, channel, lock, exitGrace);
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
   * Stops a PostgreSQL left running on the data directory by a process that was killed without its
   * shutdown hooks (SIGKILL, a crash). Holding the lock proves no live Bothy process owns the
   * directory, so a postmaster that still serves it is an orphan; left alone, it would keep the new
   * server from starting.
   */
  private static void stopOrphan(Path data, Duration wait) throws IOException {
    Path pidFile = data.resolve("postmaster.pid");
    if (!Files.isRegularFile(pidFile)) {
      return;
    }
    long pid;
    try {
      pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      // A torn pid file: PostgreSQL itself decides whether it is stale.
      return;
    }
    ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(
            p ->
                p.info()
                    .commandLine()
                    .map(c -> c.contains("postgres") && c.contains(data.toString()))
                    .orElse(false))
        .ifPresent(
            orphan -> {
              LOG.warn(
                  "stopping an orphan embedded PostgreSQL left by a process that did not stop"
                      + " cleanly: pid={} data_directory={}",
                  pid,
                  data);
              // SIGTERM is PostgreSQL's smart shutdown; the killed process's clients are gone.
              orphan.destroy();
              try {
                orphan.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
              } catch (java.util.concurrent.TimeoutException e) {
                throw BothyException.unavailable(
                    "an orphan embedded PostgreSQL (pid "
                        + pid
                        + ") on "
                        + data
                        + " did not stop within database.embedded.startupWait; stop it by hand",
                    e);
              } catch (java.util.concurrent.ExecutionException e) {
                throw BothyException.unavailable("waiting for an orphan PostgreSQL failed", e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw BothyException.unavailable("interrupted while stopping an orphan", e);
              }
            });
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
    return postgres.getPostgresDatabase(NO_ERROR_DETAIL);
  }

  /**
   * Returns an unpooled data source of the superuser on a database.
   *
   * @param database the database name
   * @return the data source
   */
  public DataSource superuserDataSource(String database) {
    return postgres.getDatabase(SUPERUSER, database, NO_ERROR_DETAIL);
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
