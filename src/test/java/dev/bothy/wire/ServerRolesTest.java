package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.api.domain.TokenHash;
import dev.bothy.testing.ChildJvm;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Starts the roles as real processes, the way a user runs the jar. */
class ServerRolesTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration START = Duration.ofSeconds(120);

  @TempDir Path dir;

  static List<String> ports(int app, int admin, int embedded) {
    return List.of(
        "-Ddw.server.applicationConnectors[0].port=" + app,
        "-Ddw.server.adminConnectors[0].port=" + admin,
        "-Ddw.database.embedded.port=" + embedded);
  }

  @Test
  void a_start_that_fails_after_the_embedded_server_started_stops_it_before_exiting()
      throws Exception {
    // A start step that fails: the bus's NATS server is not there. A taken port no longer
    // serves, since the ports are checked before the database opens (D-CK-19).
    int closed = Http.freePort();
    List<String> args = new java.util.ArrayList<>(ports(Http.freePort(), Http.freePort(), 0));
    args.add("-Ddw.bus.nats.url=nats://127.0.0.1:" + closed);
    args.add("-Ddw.bus.nats.connectionTimeout=1s");
    try (ChildJvm all =
        ChildJvm.start(BothyApplication.class.getName(), dir, args, Map.of(), "all")) {
      ChildJvm.Result result = all.await(START);

      assertThat(result.exitCode()).isNotZero();
      assertThat(result.output())
          .contains("embedded PostgreSQL started")
          .contains("embedded PostgreSQL stopped")
          .doesNotContain("not stopped by its owner in time");
      assertThat(postgresProcessesUsing(dir)).as("no orphan postgres").isZero();
    }
  }

  /** A configuration on this class's database with the given ports. */
  private Path roleConfig(String name, int app, int admin) throws java.io.IOException {
    Path config = dir.resolve(name);
    Files.writeString(
        config,
        "database:\n  url: "
            + PG.jdbcUrl()
            + "\nserver:\n  applicationConnectors:\n    - type: http\n      port: "
            + app
            + "\n  adminConnectors:\n    - type: http\n      port: "
            + admin
            + "\n");
    return config;
  }

  @Test
  void worker_opens_the_admin_port_and_no_application_port() throws Exception {
    int app = Http.freePort();
    int admin = Http.freePort();
    Path config = roleConfig("worker.yml", app, admin);
    try (ChildJvm worker =
        ChildJvm.start(
            BothyApplication.class.getName(),
            dir,
            List.of(),
            Map.of(),
            "worker",
            config.toString())) {
      awaitReady(worker, admin);

      assertThat(Http.get(admin, "/prometheus").body())
          .contains("bothy_process_role{bothy_role=\"worker\"} 1.0")
          // At zero before the first dead letter: increase() in BothyBusDeadLetters sees the
          // step to 1, which a series that first appears at 1 would hide.
          .contains("bothy_bus_dead_letters_total{bothy_bus_handler=\"system.echo\"} 0.0")
          .contains("bothy_bus_dead_letters_total{bothy_bus_handler=\"system.echoes\"} 0.0");
      assertThatThrownBy(() -> Http.get(app, "/")).isInstanceOf(ConnectException.class);
      assertThat(worker.output()).contains("[worker]").doesNotContain("embedded PostgreSQL");
      assertThat(dir.resolve("bothy-data")).doesNotExist();
      String started = worker.output();
      assertThat(started.indexOf("start step done: step=jobs"))
          .as("the worker starts the consumers after the job runtime")
          .isNotNegative()
          .isLessThan(started.indexOf("start step done: step=event_consumers"));

      ChildJvm.Result stopped = worker.terminate(Duration.ofSeconds(60));
      String out = stopped.output();
      assertThat(out.indexOf("stop step done: phase=consumers step=event_consumers"))
          .as("the consumers stop in their phase, before the job runtime")
          .isNotNegative()
          .isLessThan(out.indexOf("stop step done: phase=jobs step=jobs"));
    }
  }

  @Test
  void a_sigterm_is_logged_and_a_request_cut_off_by_the_grace_period_is_named_with_its_key()
      throws Exception {
    int app = Http.freePort();
    int admin = Http.freePort();
    Path config = roleConfig("api-grace.yml", app, admin);
    Files.writeString(
        config,
        Files.readString(config).replace("server:\n", "server:\n  shutdownGracePeriod: 1s\n")
            + "api:\n  tokens:\n    - name: alex\n      sha256: "
            + TokenHash.sha256Hex(ApiApp.ALEX)
            + "\n      scopes: [events:append]\n");
    try (ChildJvm api =
        ChildJvm.start(
            BothyApplication.class.getName(), dir, List.of(), Map.of(), "api", config.toString())) {
      awaitReady(api, admin);
      try (java.net.Socket upload = new java.net.Socket("127.0.0.1", app)) {
        // A slow upload: the headers and part of the body, the rest never comes.
        upload
            .getOutputStream()
            .write(
                ("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                        + ApiApp.ALEX
                        + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                        + "{\"events\":[")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        upload.getOutputStream().flush();
        // A byte of white space every 100 ms keeps the request in flight, past the grace period.
        Thread trickle =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 900; i++) {
                      upload.getOutputStream().write(' ');
                      upload.getOutputStream().flush();
                      Thread.sleep(100);
                    }
                  } catch (IOException | InterruptedException e) {
                    // The server cut the request off: what the test waits for.
                  }
                },
                "slow-upload");
        trickle.setDaemon(true);
        trickle.start();
        Thread.sleep(500);
        ChildJvm.Result stopped = api.terminate(Duration.ofSeconds(60));
        String out = stopped.output();
        assertThat(out)
            .contains("stop requested: closing the connectors")
            .contains("server.shutdownGracePeriod")
            .doesNotContain("stop at exit failed");
        assertThat(out.indexOf("requests still open after server.shutdownGracePeriod (1000 ms)"))
            .as(out)
            .isGreaterThan(out.indexOf("stop requested"));
      }
    }
  }

  @Test
  void api_starts_no_consumers_and_no_job_workers_but_exports_the_gauges() throws Exception {
    int app = Http.freePort();
    int admin = Http.freePort();
    Path config = roleConfig("api.yml", app, admin);
    try (java.sql.Connection c = PG.owner().getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO event_consumer_cursors (name, last_seq)"
              + " VALUES ('push', 0), ('webhooks', 0), ('bus', 0)");
    }
    // The probe launcher registers a consumer on push: the gauges cover registered consumers.
    try (ChildJvm api =
        ChildJvm.start(
            ProbeWorker.class.getName(), dir, List.of(), Map.of(), "api", config.toString())) {
      awaitReady(api, admin);
      // The gauges read the database within database.metricsReadTimeout; the first reads of a
      // fresh process can take longer and leave their series out of that scrape.
      String gauges =
          Http.getUntil(
              admin,
              "/prometheus",
              body ->
                  body.contains("bothy_event_consumer_lag{")
                      && body.contains("bothy_event_consumer_pending_age_seconds{")
                      && body.contains("bothy_jobs{"));
      // The worker's own consumers too: same jar, same configuration, same set (log transport).
      assertThat(gauges)
          .contains("bothy_event_consumer_lag{bothy_consumer_name=\"webhooks\"}")
          .contains("bothy_event_consumer_lag{bothy_consumer_name=\"bus\"}")
          .as("the registered series, which the missing-lag alert reads, is the worker's")
          .doesNotContain("bothy_event_consumer_registered{");
      assertThat(gauges)
          .contains("bothy_event_consumer_lag{bothy_consumer_name=\"push\"}")
          .contains("bothy_event_consumer_pending_age_seconds{bothy_consumer_name=\"push\"}")
          .contains("bothy_jobs{bothy_job_state=\"available\",bothy_queue=\"default\"}");
      ChildJvm.Result stopped = api.terminate(Duration.ofSeconds(60));
      assertThat(stopped.output())
          .doesNotContain("step=event_consumers")
          .doesNotContain("step=jobs")
          .doesNotContain("job runtime started");
    } finally {
      try (java.sql.Connection c = PG.owner().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.execute("DELETE FROM event_consumer_cursors");
      }
    }
  }

  @Test
  void the_help_lists_the_role_commands_and_no_plain_server_command() throws Exception {
    ChildJvm.Result help =
        ChildJvm.run(BothyApplication.class.getName(), Duration.ofSeconds(60), "-h");

    assertThat(help.exitCode()).isZero();
    assertThat(help.output())
        .contains("{check,db,jobs,bus,tokens,api,worker,all}")
        .doesNotContain("server");
  }

  static void awaitReady(ChildJvm child, int adminPort) throws Exception {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (!child.process().isAlive()) {
        throw new IllegalStateException("process ended before it was ready:\n" + child.output());
      }
      try {
        if (Http.get(adminPort, "/readyz").status() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // The admin port opens late in the start.
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("not ready within " + START + ":\n" + child.output());
  }

  static long postgresProcessesUsing(Path dir) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    long count;
    do {
      count =
          ProcessHandle.allProcesses()
              .filter(
                  p ->
                      p.info()
                          .commandLine()
                          .map(c -> c.contains("postgres") && c.contains(dir.toString()))
                          .orElse(false))
              .count();
      if (count == 0) {
        return 0;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    return count;
  }
}
