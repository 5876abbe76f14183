package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * The admin port has no authentication, so it listens on loopback unless told otherwise and offers
 * no task that changes the process. The {@code all} role starts from a file that lists its own
 * admin connector without {@code bindHost}, the way an operator changes only the port. Tests
 * connect to loopback addresses only.
 */
class AdminPortTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @TempDir static Path dir;

  private static DropwizardTestSupport<BothyConfiguration> app;
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeAll
  static void start() throws Exception {
    Path config = dir.resolve("admin-port-test.yml");
    Files.writeString(
        config,
        "server:\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n",
        StandardCharsets.UTF_8);
    app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            config.toString(),
            (String) null,
            application -> new RoleCommand(application, Role.ALL, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl));
    app.before();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.after();
    }
  }

  @Test
  void the_default_configuration_binds_the_admin_connector_to_loopback() {
    DefaultServerFactory server =
        (DefaultServerFactory) new BothyConfiguration().getServerFactory();
    AdminPort.bindLoopbackByDefault(server);

    assertThat(server.getAdminConnectors())
        .singleElement()
        .satisfies(
            c -> assertThat(((HttpConnectorFactory) c).getBindHost()).isEqualTo("127.0.0.1"));
  }

  @Test
  void an_admin_connector_with_a_bind_host_keeps_it() {
    DefaultServerFactory server = new DefaultServerFactory();
    HttpConnectorFactory exposed = (HttpConnectorFactory) HttpConnectorFactory.admin();
    exposed.setBindHost("0.0.0.0");
    server.setAdminConnectors(java.util.List.of(exposed));
    AdminPort.bindLoopbackByDefault(server);

    assertThat(exposed.getBindHost()).isEqualTo("0.0.0.0");
  }

  @Test
  void an_admin_connector_without_a_bind_host_listens_on_127_0_0_1_only() throws Exception {
    ServerConnector admin =
        Arrays.stream(app.getEnvironment().getAdminContext().getServer().getConnectors())
            .map(ServerConnector.class::cast)
            .filter(c -> c.getLocalPort() == app.getAdminPort())
            .findFirst()
            .orElseThrow();

    assertThat(admin.getHost()).isEqualTo("127.0.0.1");
    assertThat(accepts("127.0.0.1", app.getAdminPort())).isTrue();
    assertThat(accepts("127.0.0.2", app.getAdminPort()))
        .as("another local address (still loopback) is refused")
        .isFalse();
    assertThat(accepts("127.0.0.2", app.getLocalPort()))
        .as("the application connector, which binds every interface, accepts it: the probe works")
        .isTrue();
  }

  /** Jetty itself refuses the ambiguous empty segment with 400 before any servlet or filter. */
  @ParameterizedTest(name = "{0} answers {1}")
  @CsvSource({
    "/tasks/log-level?logger=org.jooq&level=DEBUG, 404",
    "/tasks/log-level?logger=ROOT&level=OFF, 404",
    "/tasks/log-level?logger=org.postgresql&level=TRACE&duration=PT1M, 404",
    "/tasks//log-level?logger=org.postgresql&level=TRACE, 400",
    "/tasks/log-level/?logger=org.jooq&level=DEBUG, 404",
    "/tasks/%6cog-level?logger=org.jooq&level=DEBUG, 404",
    "/tasks/gc, 404",
    "/tasks, 404"
  })
  void every_task_is_refused_and_changes_no_logger(String pathAndQuery, int status)
      throws Exception {
    LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
    Level jooq = logging.getLogger("org.jooq").getLevel();
    Level driver = logging.getLogger("org.postgresql").getLevel();
    Level root = logging.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel();

    HttpResponse<String> post =
        CLIENT.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + app.getAdminPort() + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(post.statusCode()).isEqualTo(status);
    assertThat(logging.getLogger("org.jooq").getLevel()).isEqualTo(jooq);
    assertThat(logging.getLogger("org.postgresql").getLevel()).isEqualTo(driver);
    assertThat(logging.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(root);
  }

  @Test
  void a_live_scrape_of_prometheus_passes_promtool_check_metrics() throws Exception {
    // Some traffic first, so the request timers and counters have series.
    CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getLocalPort() + "/v1/events"))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
    String scrape = Http.get(app.getAdminPort(), "/prometheus").body();
    assertThat(scrape).contains("bothy_process_role");
    // Kept for a reader of a failure: what promtool saw.
    Files.writeString(Path.of("target/prometheus-scrape.txt"), scrape, StandardCharsets.UTF_8);

    assertThat(promtoolProblems(scrape)).as("promtool check metrics").isEmpty();
    assertThat(scrape.lines().filter(line -> line.startsWith("# HELP bothy_")))
        .as("Bothy's families have their own help text")
        .isNotEmpty()
        .noneMatch(line -> line.contains("Dropwizard metric"));
  }

  /**
   * Runs {@code promtool check metrics} on a scrape.
   *
   * @param scrape the text of {@code /prometheus}
   * @return what promtool reported, empty when it found nothing and exited 0
   * @throws Exception when promtool cannot run
   */
  static String promtoolProblems(String scrape) throws Exception {
    Process promtool =
        new ProcessBuilder(ObservabilityFilesTest.promtool().toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (var in = promtool.getOutputStream()) {
      in.write(scrape.getBytes(StandardCharsets.UTF_8));
    }
    String problems = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return promtool.exitValue() == 0 ? problems : "exit " + promtool.exitValue() + ":\n" + problems;
  }

  private static boolean accepts(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 2000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
