package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.Http;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a user runs it: {@code java -jar target/bothy.jar ...} with no files beside it.
 * Runs in the integration-test phase, after {@code package}.
 */
class JarIT {
  private static final Duration START = Duration.ofSeconds(120);

  @TempDir Path dir;

  @Test
  void all_with_no_configuration_file_starts_embedded_postgresql_and_serves_the_admin_port()
      throws Exception {
    int app = Http.freePort();
    int admin = Http.freePort();
    int embedded = Http.freePort();
    try (ChildJvm all =
        ChildJvm.startJar(dir, ServerRolesTest.ports(app, admin, embedded), "all")) {
      ServerRolesTest.awaitReady(all, admin);

      Http.Response health = Http.get(admin, "/healthcheck");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.body()).contains("\"healthy\":true").doesNotContain("\"healthy\":false");
      Http.Response prometheus = Http.get(admin, "/prometheus");
      assertThat(prometheus.status()).isEqualTo(200);
      // The jar's main also registers the JVM metrics, which the in-process tests do not see.
      assertThat(AdminPortTest.promtoolProblems(prometheus.body()))
          .as("promtool check metrics on the jar's scrape")
          .isEmpty();
      assertThat(prometheus.body())
          .contains("bothy_pool_active_connections")
          .contains("bothy_pool_total_connections")
          .contains("bothy_process_role{bothy_role=\"all\"} 1.0");
      assertThat(Http.get(admin, "/readyz"))
          .isEqualTo(new Http.Response(200, "{\"status\":\"ready\"}"));
      assertThat(Http.get(admin, "/healthz").status()).isEqualTo(200);
      assertThat(Http.get(admin, "/ping").body()).contains("pong");
      assertThat(Http.get(admin, "/metrics").body()).contains("bothy.pool.ActiveConnections");
      assertThat(Http.get(app, "/").status()).as("the application port is open").isEqualTo(404);
      assertThat(all.output())
          .contains("[all]")
          .contains("embedded PostgreSQL, which is for development only")
          .contains("user=bothy_app");
      assertThat(dir.resolve("bothy-data/postgres/PG_VERSION")).hasContent("18");

      a_second_process_on_the_same_data_directory_fails_with_a_clear_message();
      the_jobs_commands_work_against_the_running_embedded_default(embedded);

      ChildJvm.Result stopped = all.terminate(Duration.ofSeconds(60));
      assertThat(stopped.output())
          .contains("stop step done: phase=pool step=pool")
          .contains("embedded PostgreSQL stopped")
          .doesNotContain("not stopped by its owner in time");
      assertThat(ServerRolesTest.postgresProcessesUsing(dir)).as("no orphan postgres").isZero();
    }

    a_restart_on_the_same_data_directory_keeps_the_data_and_becomes_ready();
  }

  private void a_restart_on_the_same_data_directory_keeps_the_data_and_becomes_ready()
      throws Exception {
    int admin = Http.freePort();
    try (ChildJvm again =
        ChildJvm.startJar(
            dir, ServerRolesTest.ports(Http.freePort(), admin, Http.freePort()), "all")) {
      ServerRolesTest.awaitReady(again, admin);

      assertThat(again.output())
          .as("the data directory was reused, not initialised again")
          .doesNotContain("initdb completed");
      again.terminate(Duration.ofSeconds(60));
    }
    assertThat(ServerRolesTest.postgresProcessesUsing(dir)).as("no orphan postgres").isZero();
  }

  private void the_jobs_commands_work_against_the_running_embedded_default(int embedded)
      throws Exception {
    List<String> port = List.of("-Ddw.database.embedded.port=" + embedded);
    long deadline = System.nanoTime() + START.toNanos();
    String listed = "";
    while (!listed.contains("sync.partition_maintenance") && System.nanoTime() < deadline) {
      try (ChildJvm list = ChildJvm.startJar(dir, port, "jobs", "list")) {
        ChildJvm.Result result = list.await(START);
        assertThat(result.exitCode()).as(result.output()).isZero();
        listed = result.output();
      }
    }
    assertThat(listed)
        .as("the running all inserted and worked its periodic partition maintenance")
        .contains("ID")
        .contains("STATE")
        .contains("sync.partition_maintenance");
    try (ChildJvm show = ChildJvm.startJar(dir, port, "jobs", "show", "not-a-job")) {
      ChildJvm.Result result = show.await(START);
      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.output()).contains("jobs show: 'not-a-job' is not a job id (a UUID)");
    }
  }

  private void a_second_process_on_the_same_data_directory_fails_with_a_clear_message()
      throws Exception {
    try (ChildJvm second =
        ChildJvm.startJar(
            dir, ServerRolesTest.ports(Http.freePort(), Http.freePort(), Http.freePort()), "all")) {
      ChildJvm.Result result = second.await(START);

      assertThat(result.exitCode()).isNotZero();
      assertThat(result.output())
          .contains("is in use by another process (database.embedded.dataDirectory)");
    }
  }

  /**
   * The README's tour as a newcomer runs it: a configuration file with a token, a fresh data
   * directory. The start logs one warning, the one it means (the embedded server is for
   * development), and no error, banner, tip, status dump of logback or line of each changeset.
   */
  @Test
  void a_first_start_as_in_the_tour_logs_no_error_and_only_the_development_warning()
      throws Exception {
    int admin = Http.freePort();
    int application = Http.freePort();
    Path config = dir.resolve("bothy.yml");
    // The tour's file, with free ports instead of the defaults a parallel build may hold.
    java.nio.file.Files.writeString(
        config,
        "server:\n  applicationConnectors:\n    - type: http\n      port: "
            + application
            + "\n  adminConnectors:\n    - type: http\n      port: "
            + admin
            + "\ndatabase:\n  embedded:\n    port: "
            + Http.freePort()
            + "\napi:\n  tokens:\n    - name: alex\n      sha256: "
            + dev.bothy.api.domain.TokenHash.sha256Hex("alex-tour-token")
            + "\n      scopes: [events:append, events:read, admin:read, system:write,"
            + " system:read]\n");
    ChildJvm.Result stopped;
    try (ChildJvm all = ChildJvm.startJar(dir, List.of(), "all", config.toString())) {
      ServerRolesTest.awaitReady(all, admin);
      // The log and job gauges read the database within database.metricsReadTimeout: a first
      // read of the fresh process may take longer and give null for that scrape. A consumer
      // gauge without a cursor row would give null on every scrape, so this wait cannot hide one.
      String metrics = Http.getUntil(admin, "/metrics", body -> !body.contains("\"value\":null"));
      assertThat(metrics)
          .as("the all role runs the webhooks consumer: its gauges read its cursor, none is null")
          .contains("\"bothy.event.consumer.lag{bothy_consumer_name=webhooks}\":{\"value\":0}")
          .contains("bothy.event.consumer.pending_age_seconds{bothy_consumer_name=webhooks}")
          .as("and the bus consumer of the log transport, for flow 00's system_echo")
          .contains("\"bothy.event.consumer.lag{bothy_consumer_name=bus}\":{\"value\":0}")
          .doesNotContain("\"value\":null");
      // Flow 00 as the tour runs it: a ping recorded, then echoed by system.echo on the log.
      java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
      java.net.http.HttpResponse<String> created =
          client.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + application + "/v1/system/pings"))
                  .header("Authorization", "Bearer alex-tour-token")
                  .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String id = created.body().replaceAll(".*\"id\":\"([0-9a-f-]{36})\".*", "$1");
      String ping = "";
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!ping.contains("\"status\":\"echoed\"") && System.nanoTime() < deadline) {
        ping =
            client
                .send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(
                                "http://127.0.0.1:" + application + "/v1/system/pings/" + id))
                        .header("Authorization", "Bearer alex-tour-token")
                        .GET()
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        Thread.sleep(50);
      }
      assertThat(ping).contains("\"id\":\"" + id + "\"").contains("\"status\":\"echoed\"");
      // Requests Jetty refuses while parsing: its parser would log their header values at WARN.
      for (String refused :
          List.of(
              "GET /v1/events HTTP/1.1\r\nHost: hostmarker-a\r\nHost: hostmarker-b\r\n\r\n",
              "GET /v1/events HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
                  + "Content-Length: 2\r\n\r\nx")) {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", application)) {
          socket.setSoTimeout(10_000);
          socket.getOutputStream().write(refused.getBytes(StandardCharsets.US_ASCII));
          assertThat(new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
              .isEqualTo("HTTP/1.1 400");
        }
      }
      stopped = all.terminate(Duration.ofSeconds(60));
    }

    List<String> lines = stopped.output().lines().toList();
    assertThat(lines).as("the start ran").anyMatch(line -> line.contains("start step done"));
    assertThat(lines).as("no error of any source").noneMatch(line -> line.contains("ERROR"));
    assertThat(lines.stream().filter(line -> line.contains("WARN")))
        .as("only the warning it means")
        .singleElement()
        .satisfies(
            line ->
                assertThat(line).contains("embedded PostgreSQL, which is for development only"));
    assertThat(stopped.output())
        .doesNotContain("Thank you for using jOOQ")
        .doesNotContain("tip of the day")
        .doesNotContain("@@@@@@@@@@")
        .doesNotContain("Running Changeset")
        .doesNotContain("databasechangeloglock")
        .doesNotContain("hostmarker")
        .doesNotContain("|-INFO in")
        .as("no list of tasks that answer 404")
        .doesNotContain("/tasks/log-level");
  }

  @Test
  void db_migrate_and_db_status_run_from_the_jar_on_the_embedded_default() throws Exception {
    List<String> port = List.of("-Ddw.database.embedded.port=" + Http.freePort());

    // On a new data directory a dry run prints the changelog's SQL and applies none of it, and
    // status lists every changeset as pending (D-CK-18).
    try (ChildJvm dryRun = ChildJvm.startJar(dir, port, "db", "migrate", "--dry-run")) {
      ChildJvm.Result result = dryRun.await(START);
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("CREATE TABLE").doesNotContain("up to date");
    }
    try (ChildJvm pending = ChildJvm.startJar(dir, port, "db", "status")) {
      ChildJvm.Result result = pending.await(START);
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("have not been applied");
    }
    try (ChildJvm migrate = ChildJvm.startJar(dir, port, "db", "migrate")) {
      ChildJvm.Result result = migrate.await(START);
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("0001-roles");
    }
    try (ChildJvm status = ChildJvm.startJar(dir, port, "db", "status")) {
      ChildJvm.Result result = status.await(START);
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("is up to date");
    }
    assertThat(ServerRolesTest.postgresProcessesUsing(dir)).as("no orphan postgres").isZero();
  }

  @Test
  void the_jar_prints_its_commands_and_version() throws Exception {
    try (ChildJvm help = ChildJvm.startJar(dir, List.of(), "-h")) {
      ChildJvm.Result result = help.await(START);
      assertThat(result.exitCode()).isZero();
      assertThat(result.output()).contains("{check,db,jobs,bus,tokens,api,worker,all}");
    }
    try (ChildJvm version = ChildJvm.startJar(dir, List.of(), "-v")) {
      ChildJvm.Result result = version.await(START);
      assertThat(result.output().trim()).matches("\\d+\\.\\d+\\.\\d+.*");
    }
  }
}
