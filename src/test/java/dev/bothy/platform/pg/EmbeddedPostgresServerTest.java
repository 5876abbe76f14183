package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.testing.ChildJvm;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedPostgresServerTest {
  @TempDir Path dir;

  @Test
  void a_taken_port_fails_with_a_message_naming_the_key() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  EmbeddedPostgresServer.start(
                      dir.resolve("data"),
                      taken.getLocalPort(),
                      Duration.ofSeconds(30),
                      Duration.ZERO,
                      EmbeddedPostgresServer.Durability.THROWAWAY))
          .isInstanceOfSatisfying(
              BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
          .hasMessageContaining("port " + taken.getLocalPort())
          .hasMessageContaining("database.embedded.port");
    }
  }

  @Test
  void a_data_directory_held_by_another_owner_fails_with_a_message_naming_the_key()
      throws Exception {
    Path data = dir.resolve("data");
    try (FileChannel holder =
        FileChannel.open(
            dir.resolve("data.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      holder.lock();
      assertThatThrownBy(
              () ->
                  EmbeddedPostgresServer.start(
                      data,
                      0,
                      Duration.ofSeconds(30),
                      Duration.ZERO,
                      EmbeddedPostgresServer.Durability.THROWAWAY))
          .isInstanceOf(BothyException.class)
          .hasMessageContaining("is in use by another process")
          .hasMessageContaining("database.embedded.dataDirectory");
    }
  }

  @Test
  void postgres_runs_from_a_directory_of_this_user_alone_and_an_open_one_is_refused()
      throws Exception {
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      // A backend runs the binary under the private directory, not the library's shared one.
      long pid;
      try (Connection c = server.superuserDataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
        assertThat(rs.next()).isTrue();
        pid = rs.getLong(1);
      }
      String binary = ProcessHandle.of(pid).orElseThrow().info().command().orElseThrow();
      Path binaries = EmbeddedPostgresServer.defaultBinariesDirectory();
      assertThat(binary).startsWith(binaries.toString());
      assertThat(
              PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(binaries, LinkOption.NOFOLLOW_LINKS)))
          .isEqualTo("rwx------");
    }

    Path fresh = dir.resolve("fresh");
    assertThat(EmbeddedPostgresServer.privateDirectory(fresh)).isEqualTo(fresh);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)))
        .isEqualTo("rwx------");
    Path open = Files.createDirectory(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> EmbeddedPostgresServer.privateDirectory(open))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining(open.toString())
        .hasMessageContaining("open to other users");
    Path link = Files.createSymbolicLink(dir.resolve("link"), fresh);
    assertThatThrownBy(() -> EmbeddedPostgresServer.privateDirectory(link))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("is not a directory");
  }

  @Test
  void a_durable_server_syncs_each_commit_and_a_throwaway_one_does_not() throws Exception {
    for (EmbeddedPostgresServer.Durability durability :
        EmbeddedPostgresServer.Durability.values()) {
      String expected = durability == EmbeddedPostgresServer.Durability.DURABLE ? "on" : "off";
      try (EmbeddedPostgresServer server =
          EmbeddedPostgresServer.start(
              dir.resolve(durability.name()),
              0,
              Duration.ofSeconds(60),
              Duration.ZERO,
              durability)) {
        try (Connection c = server.superuserDataSource().getConnection();
            Statement st = c.createStatement()) {
          for (String setting : List.of("fsync", "synchronous_commit")) {
            try (ResultSet rs = st.executeQuery("show " + setting)) {
              assertThat(rs.next()).isTrue();
              assertThat(rs.getString(1)).as(durability + " " + setting).isEqualTo(expected);
            }
          }
        }
      }
    }
  }

  @Test
  void the_port_of_a_running_server_is_read_from_its_data_directory() throws Exception {
    Path data = dir.resolve("data");
    assertThat(EmbeddedPostgresServer.runningPort(data)).as("nothing runs yet").isEmpty();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            data,
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      assertThat(EmbeddedPostgresServer.runningPort(data)).hasValue(server.port());
    }
    assertThat(EmbeddedPostgresServer.runningPort(data)).as("stopped").isEmpty();
  }

  /** The child JVM's program: starts an embedded server on a directory and waits. */
  public static final class HoldsServer {
    private HoldsServer() {}

    /**
     * Starts the server and reports its port, then waits to be killed.
     *
     * @param args the data directory
     * @throws InterruptedException never, the test kills the process first
     */
    public static void main(String[] args) throws InterruptedException {
      EmbeddedPostgresServer server =
          EmbeddedPostgresServer.start(
              Path.of(args[0]),
              0,
              Duration.ofSeconds(60),
              Duration.ZERO,
              EmbeddedPostgresServer.Durability.THROWAWAY);
      System.out.println("HOLDING port=" + server.port());
      Thread.sleep(120_000);
    }
  }

  @Test
  void a_server_orphaned_by_a_killed_process_is_stopped_and_the_directory_starts_again()
      throws Exception {
    Path data = dir.resolve("data");
    try (ChildJvm holder =
        ChildJvm.start(HoldsServer.class.getName(), dir, List.of(), Map.of(), data.toString())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (!holder.output().contains("HOLDING") && System.nanoTime() < deadline) {
        assertThat(holder.process().isAlive()).as(holder.output()).isTrue();
        Thread.sleep(100);
      }
      holder.process().destroyForcibly().waitFor();
    }
    assertThat(data.resolve("postmaster.pid")).as("the killed process left its server").exists();

    try (EmbeddedPostgresServer restarted =
        EmbeddedPostgresServer.start(
            data,
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      try (Connection c = restarted.superuserDataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select 1")) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  @Test
  void every_connection_needs_the_generated_password_and_there_is_no_socket() throws Exception {
    Path data = dir.resolve("data");
    try (EmbeddedPostgresServer server = start(data)) {
      String url = server.jdbcUrl("postgres");
      // What another local user can do: reach 127.0.0.1, without the data directory's file.
      assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", null).close())
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", "postgres").close())
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("password authentication failed");
      try (Connection c = DriverManager.getConnection(url, "postgres", server.password());
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SHOW unix_socket_directories")) {
        rs.next();
        assertThat(rs.getString(1)).as("no socket, so no socket to reach").isEmpty();
      }
      assertThat(Files.exists(Path.of("/tmp/.s.PGSQL." + server.port()))).isFalse();
      Path file = data.resolve(EmbeddedPostgresServer.PASSWORD_FILE);
      assertThat(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(EmbeddedPostgresServer.readPassword(data)).hasValue(server.password());
      assertThat(server.password()).hasSizeGreaterThanOrEqualTo(40);
      assertThat(hbaMethods(data)).containsOnly("scram-sha-256");
    }
    try (EmbeddedPostgresServer again = start(data)) {
      assertThat(again.password())
          .as("kept across starts")
          .isEqualTo(EmbeddedPostgresServer.readPassword(data).orElseThrow());
      try (Connection c = again.superuserDataSource().getConnection()) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
  }

  @Test
  void a_role_given_the_password_logs_in_with_it_and_only_with_it() throws Exception {
    try (EmbeddedPostgresServer server = start(dir.resolve("data"))) {
      try (Connection c = server.superuserDataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE ROLE alex_app LOGIN");
      }
      String url = server.jdbcUrl("postgres");
      assertThatThrownBy(() -> DriverManager.getConnection(url, "alex_app", null).close())
          .isInstanceOf(SQLException.class);
      server.setPassword("alex_app");
      try (Connection c = DriverManager.getConnection(url, "alex_app", server.password())) {
        assertThat(c.isValid(5)).isTrue();
      }
      assertThatThrownBy(() -> server.setPassword("robin_missing"))
          .isInstanceOf(BothyException.class)
          .hasMessageContaining("robin_missing")
          .hasMessageContaining("database.user")
          .hasMessageNotContaining(server.password());
    }
  }

  @Test
  void a_data_directory_of_an_earlier_version_gets_a_password_and_keeps_its_data()
      throws Exception {
    Path data = dir.resolve("data");
    // What earlier versions left: the library's initdb, trust for every connection.
    try (EmbeddedPostgres earlier =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(dir.resolve("binaries").toFile())
            .setDataDirectory(data)
            .setCleanDataDirectory(false)
            .start()) {
      try (Connection c = earlier.getPostgresDatabase().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE kept (name text)");
        st.execute("INSERT INTO kept VALUES ('sam')");
      }
    }
    assertThat(hbaMethods(data)).contains("trust");
    try (EmbeddedPostgresServer server = start(data)) {
      String url = server.jdbcUrl("postgres");
      assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", null).close())
          .isInstanceOf(SQLException.class);
      assertThat(hbaMethods(data)).containsOnly("scram-sha-256");
      assertThat(EmbeddedPostgresServer.readPassword(data)).hasValue(server.password());
      try (Connection c = server.superuserDataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT name FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("sam");
      }
    }
  }

  @Test
  void a_rule_left_trusting_is_replaced_before_the_server_runs() throws Exception {
    Path data = dir.resolve("data");
    try (EmbeddedPostgresServer first = start(data)) {
      assertThat(first.password()).isNotEmpty();
    }
    // What an edit, or a start of an earlier directory killed between its two files, leaves.
    Files.writeString(
        data.resolve("pg_hba.conf"), "host all all 127.0.0.1/32 trust\nlocal all all trust\n");
    try (EmbeddedPostgresServer server = start(data)) {
      assertThat(hbaMethods(data)).containsOnly("scram-sha-256");
      String url = server.jdbcUrl("postgres");
      assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", null).close())
          .isInstanceOf(SQLException.class);
    }
  }

  @Test
  void a_start_that_gives_up_waiting_leaves_no_server_running() throws Exception {
    Path data = dir.resolve("data");
    try (EmbeddedPostgresServer first = start(data)) {
      assertThat(first.password()).isNotEmpty();
    }
    // Too short for any server to answer: the postmaster is launched, the wait gives up.
    assertThatThrownBy(
            () ->
                EmbeddedPostgresServer.start(
                    data,
                    0,
                    Duration.ofMillis(1),
                    Duration.ZERO,
                    EmbeddedPostgresServer.Durability.THROWAWAY))
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("database.embedded.dataDirectory");
    Path pidFile = data.resolve("postmaster.pid");
    if (Files.exists(pidFile)) {
      long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
      // A kill takes effect at once, but the exit is seen a moment later; before the fix the
      // postmaster stayed for good.
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent()
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
          .as("the postmaster of the failed start")
          .isEmpty();
    }
    // Released for the next process; this one cannot start it again, since the library keeps its
    // own lock of a failed start (platform/pg README).
    assertThat(EmbeddedPostgresServer.inUse(data)).isFalse();
  }

  private static EmbeddedPostgresServer start(Path data) {
    return EmbeddedPostgresServer.start(
        data,
        0,
        Duration.ofSeconds(60),
        Duration.ZERO,
        EmbeddedPostgresServer.Durability.THROWAWAY);
  }

  /** The methods of every rule of the data directory's pg_hba.conf. */
  private static Set<String> hbaMethods(Path data) throws Exception {
    return Files.readAllLines(data.resolve("pg_hba.conf")).stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .map(l -> l.split("\\s+"))
        .map(f -> f[f.length - 1])
        .collect(java.util.stream.Collectors.toSet());
  }
}
