package dev.bothy.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real {@code nats-server} with JetStream for the tests (DESIGN.md section 14): started on a free
 * loopback port with a store in a temporary directory, so a test may kill it, restart it on the
 * same port and store, or stop it. It never touches the machine's own NATS on 4222.
 *
 * <p>The binary comes from the {@code PATH}, {@code /usr/sbin} or {@code /usr/bin}, else it is
 * unpacked from Debian's {@code nats-server} package into {@code target/tools} ({@link
 * DebianTool}). Debian's server is 2.9.x: the tests use only what 2.9 has.
 *
 * <pre>{@code
 * @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();
 * @RegisterExtension static final NatsServer SMALL = NatsServer.jetStream().maxPayload(1024);
 * ... NATS.url() ...
 * }</pre>
 *
 * <p>As an extension it starts before the class's tests and stops after them; without the
 * extension, call {@link #start()} and {@link #close()}.
 */
public final class NatsServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  /** The longest wait for a started server to answer on its port. */
  public static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final int START_ATTEMPTS = 3;

  private String token;
  private Integer maxPayload;
  private boolean monitoring;

  private Path directory;
  private int port;
  private int monitorPort;
  private Process process;

  private NatsServer() {}

  /**
   * Returns a server with JetStream and the server's defaults, not yet started.
   *
   * @return the server
   */
  public static NatsServer jetStream() {
    return new NatsServer();
  }

  /**
   * Makes the server require a token; before {@link #start()}.
   *
   * @param token the token clients must present
   * @return this server
   */
  public NatsServer token(String token) {
    this.token = token;
    return this;
  }

  /**
   * Sets the server's {@code max_payload}; before {@link #start()}.
   *
   * @param bytes the largest message the server accepts
   * @return this server
   */
  public NatsServer maxPayload(int bytes) {
    this.maxPayload = bytes;
    return this;
  }

  /**
   * Opens the monitoring endpoint ({@code -m}) on a free port too; before {@link #start()}.
   *
   * @return this server
   */
  public NatsServer monitoring() {
    this.monitoring = true;
    return this;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  /**
   * Starts the server on a free port with a fresh store, and waits until it answers.
   *
   * @throws Exception when the binary cannot be found or the server does not answer within {@link
   *     #READY_TIMEOUT}
   */
  public synchronized void start() throws Exception {
    if (process != null) {
      throw new IllegalStateException("nats-server is already started");
    }
    directory = Files.createTempDirectory("bothy-nats-");
    AssertionError last = null;
    // A free port may be taken between the probe and the server's bind: try another.
    for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
      port = freePort();
      monitorPort = monitoring ? freePort() : 0;
      try {
        launch();
        return;
      } catch (AssertionError e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Returns the client URL, {@code nats://127.0.0.1:<port>}.
   *
   * @return the URL
   */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  /**
   * Returns the client port.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * Returns the monitoring port.
   *
   * @return the port
   * @throws IllegalStateException when the server was built without {@link #monitoring()}
   */
  public int monitorPort() {
    if (!monitoring) {
      throw new IllegalStateException("the server was built without monitoring()");
    }
    return monitorPort;
  }

  /**
   * Returns the JetStream store directory, which {@link #restart()} keeps.
   *
   * @return the directory
   */
  public Path storeDirectory() {
    return directory.resolve("store");
  }

  /**
   * Returns the process id of the running server.
   *
   * @return the pid
   * @throws IllegalStateException when it is not running
   */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException("nats-server is not running");
    }
    return process.pid();
  }

  /**
   * Tells whether the server process is running.
   *
   * @return true while it runs
   */
  public synchronized boolean running() {
    return process != null && process.isAlive();
  }

  /**
   * Kills the server with SIGKILL, by the PID of the process this harness started: no flush, no
   * goodbye to the clients. Waits until the process is gone.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public synchronized void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    // Destroying a Process forcibly sends SIGKILL to exactly the process this harness started.
    ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("nats-server did not end after SIGKILL");
    }
    process = null;
  }

  /**
   * Stops the server gracefully (SIGTERM), then with SIGKILL if it does not end within ten seconds.
   * The store directory stays for {@link #restart()}.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public synchronized void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    process = null;
  }

  /**
   * Starts the server again on the same port with the same store, after {@link #kill()} or {@link
   * #stop()} (or stops a running one first), and waits until it answers.
   *
   * @throws Exception when it does not answer within {@link #READY_TIMEOUT}
   */
  public synchronized void restart() throws Exception {
    stop();
    launch();
  }

  /** Stops the server and deletes its directory. */
  @Override
  public synchronized void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (directory != null) {
      try (Stream<Path> walk = Files.walk(directory)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      directory = null;
    }
  }

  private void launch() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    Path config = directory.resolve("nats.conf");
    // The token and max_payload go into a file: a token on the command line shows in ps.
    StringBuilder conf = new StringBuilder();
    if (token != null) {
      conf.append("authorization {\n  token: \"").append(token).append("\"\n}\n");
    }
    if (maxPayload != null) {
      conf.append("max_payload: ").append(maxPayload).append('\n');
    }
    Files.writeString(config, conf.toString());
    command.addAll(List.of("-c", config.toString()));
    command.addAll(
        List.of(
            "-js",
            "-a",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-sd",
            storeDirectory().toString()));
    if (monitoring) {
      command.addAll(List.of("-m", Integer.toString(monitorPort)));
    }
    Path log = directory.resolve("nats-server.log");
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        process = null;
        throw new AssertionError("nats-server ended at start:\n" + Files.readString(log));
      }
      if (answers()) {
        return;
      }
      // Bounded by the deadline; a connect attempt to a closed loopback port fails at once.
      Thread.sleep(20);
    }
    process.destroyForcibly();
    process = null;
    throw new AssertionError(
        "nats-server did not answer within " + READY_TIMEOUT + ":\n" + Files.readString(log));
  }

  /** Tells whether the server greets on its port with an INFO line that offers JetStream. */
  private boolean answers() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      socket.setSoTimeout(1000);
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String info = in.readLine();
      return info != null && info.startsWith("INFO ") && info.contains("\"jetstream\":true");
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int free = socket.getLocalPort();
      if (free == 4222) {
        // The machine's own NATS listens on 4222 on some interface: never hand it out.
        return freePort();
      }
      return free;
    }
  }

  /**
   * Finds {@code nats-server}, unpacking Debian's package when it is nowhere.
   *
   * @return the executable
   * @throws Exception when it cannot be found or unpacked
   */
  public static Path binary() throws Exception {
    return DebianTool.find(
        "nats-server", "nats-server", "usr/sbin/nats-server", List.of("/usr/sbin", "/usr/bin"));
  }
}
