package dev.bothy.wire;

import dev.bothy.api.domain.TokenHash;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The {@code all} role inside the test JVM with three API tokens, and an HTTP client for it: a real
 * client against the started application.
 */
final class ApiApp implements AutoCloseable {
  /** Alex appends and reads. */
  static final String ALEX = "alex-token-4b1f0c2e9d7a";

  /** Sam only reads. */
  static final String SAM = "sam-token-8e3a5d6b1c0f";

  /** Robin only reads the consumers. */
  static final String ROBIN = "robin-token-2c7e9a4f6b3d";

  /** The application log file in the configuration's directory: every line, debug included. */
  static final String APPLICATION_LOG = "bothy.log";

  /** The request log file in the configuration's directory. */
  static final String REQUEST_LOG = "requests.log";

  final DropwizardTestSupport<BothyConfiguration> support;
  final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ApiApp(DropwizardTestSupport<BothyConfiguration> support) {
    this.support = support;
  }

  /**
   * Starts the application.
   *
   * @param pg the test database
   * @param dir where the configuration file goes
   * @param extraYaml more top-level YAML sections (sync, api limits), may be empty
   * @return the started application
   */
  static ApiApp start(PgExtension pg, Path dir, String extraYaml) throws Exception {
    Path config = dir.resolve("api-test.yml");
    String yaml =
        "server:\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders:\n"
            + fileAppender(dir.resolve(REQUEST_LOG))
            + "logging:\n  level: INFO\n  loggers:\n    dev.bothy: DEBUG\n  appenders:\n"
            + "    - type: console\n"
            + fileAppender(dir.resolve(APPLICATION_LOG))
            + "api:\n"
            + "  maxEventsPerRequest: 10\n"
            + "  maxRequestBytes: 8192\n"
            + "  maxPageSize: 50\n"
            + "  defaultPageSize: 20\n"
            + "  maxStreams: 4\n"
            + "  streamHeartbeat: 200ms\n"
            + "  streamRetryAfter: 7s\n"
            + "  tokens:\n"
            + token("alex", ALEX, "events:append", "events:read")
            + token("sam", SAM, "events:read")
            + token("robin", ROBIN, "admin:read")
            + extraYaml;
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    DropwizardTestSupport<BothyConfiguration> support =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            config.toString(),
            (String) null,
            application -> new RoleCommand(application, Role.ALL, "test"),
            ConfigOverride.config("database.url", pg::jdbcUrl));
    support.before();
    return new ApiApp(support);
  }

  private static String fileAppender(Path file) {
    return "    - type: file\n      currentLogFilename: "
        + file
        + "\n      archive: false\n      threshold: ALL\n";
  }

  private static String token(String name, String token, String... scopes) {
    return "    - name: "
        + name
        + "\n      sha256: "
        + TokenHash.sha256Hex(token)
        + "\n      scopes: ["
        + String.join(", ", scopes)
        + "]\n";
  }

  Assembly assembly() {
    BothyApplication application = support.getApplication();
    return application.assembly();
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + support.getLocalPort() + pathAndQuery);
  }

  /** A request builder with the token, when one is given. */
  HttpRequest.Builder request(String pathAndQuery, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String pathAndQuery, String token)
      throws IOException, InterruptedException {
    return send(request(pathAndQuery, token).GET().build());
  }

  HttpResponse<String> post(String body, String token, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        request("/v1/events", token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::setHeader);
    return send(b.build());
  }

  @Override
  public void close() {
    support.after();
  }
}
