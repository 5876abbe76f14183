package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.platform.lifecycle.Role;
import dev.bothy.sync.ConsumerName;
import dev.bothy.testing.HeldConnections;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.core.Application;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The consumer gauges where they matter most: an {@code api} process, which runs no consumer but
 * reports what a missing worker leaves undone. {@code push} is registered (its handler never runs
 * in this role); {@code webhooks} is not, so it has no gauge at all, not even one without a value.
 */
class ConsumerGaugesTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final int POOL = 2;
  private static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofMillis(300);

  private static DropwizardTestSupport<BothyConfiguration> app;

  @BeforeAll
  static void start() throws Exception {
    app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            (String) null,
            (String) null,
            application -> new RoleCommand(application, Role.API, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl),
            ConfigOverride.config("server.applicationConnectors[0].port", "0"),
            ConfigOverride.config("server.adminConnectors[0].port", "0"),
            // A small pool and a short bound, so a test can take every connection.
            ConfigOverride.config("database.maxPoolSize", Integer.toString(POOL)),
            ConfigOverride.config("database.metricsReadTimeout", READ_TIMEOUT.toMillis() + "ms")) {
          @Override
          public Application<BothyConfiguration> newApplication() {
            return new BothyApplication(
                assembly -> assembly.sync().registerConsumer(ConsumerName.PUSH, event -> {}));
          }
        };
    app.before();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.after();
    }
  }

  private static Assembly assembly() {
    BothyApplication application = app.getApplication();
    return application.assembly();
  }

  @Test
  void the_api_role_has_gauges_of_the_consumers_a_worker_of_its_configuration_runs()
      throws Exception {
    String json = Http.get(app.getAdminPort(), "/metrics").body();
    // An unregistered consumer has no gauge: ConsumerMetricsTest.
    assertThat(json)
        .contains("bothy.event.consumer.lag{bothy_consumer_name=push}")
        .contains("bothy.event.consumer.lag{bothy_consumer_name=webhooks}")
        .contains("bothy.event.consumer.lag{bothy_consumer_name=bus}");
    assertThat(assembly().sync().consumers().registered())
        .as("webhooks, and bus on the log transport (no bus.nats.url), without running them")
        .containsExactlyInAnyOrder(ConsumerName.PUSH, ConsumerName.WEBHOOKS, ConsumerName.BUS);
  }

  @Test
  void the_consumer_gauges_show_a_cursor_behind_the_head_and_only_for_registered_consumers()
      throws Exception {
    assembly()
        .unitOfWork()
        .run(
            () ->
                assembly()
                    .appender()
                    .append(
                        new dev.bothy.sync.EventDraft(
                            "settings.updated",
                            new dev.bothy.sync.ResourceRef("user", dev.bothy.kernel.Ids.newId()),
                            java.util.Optional.empty(),
                            new dev.bothy.sync.SettingsUpdated(List.of("locale")))));
    long head = assembly().eventLog().head();
    try (java.sql.Connection c = PG.owner().getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO event_consumer_cursors (name, last_seq) VALUES ('push', "
              + (head - 1)
              + ")");
    }
    try {
      String prometheus = "";
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (!prometheus.contains("bothy_event_consumer_lag{") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        prometheus = Http.get(app.getAdminPort(), "/prometheus").body();
      }
      assertThat(prometheus)
          .contains("bothy_event_consumer_lag{bothy_consumer_name=\"push\"} 1.0")
          .contains("bothy_event_consumer_pending_age_seconds{bothy_consumer_name=\"push\"}")
          .as("no row, no series")
          .doesNotContain("bothy_event_consumer_lag{bothy_consumer_name=\"webhooks\"}");
      assertThat(assembly().sync().consumers().states())
          .singleElement()
          .satisfies(s -> assertThat(s.lag()).isEqualTo(1));
    } finally {
      try (java.sql.Connection c = PG.owner().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.execute("DELETE FROM event_consumer_cursors");
      }
    }
  }

  @Test
  void with_every_connection_taken_a_scrape_answers_within_the_bound_without_the_lag_series()
      throws Exception {
    long head = assembly().eventLog().head();
    try (java.sql.Connection c = PG.owner().getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO event_consumer_cursors (name, last_seq) VALUES ('push', " + head + ")");
    }
    try {
      String before = "";
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (!before.contains("bothy_event_consumer_lag{") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        before = Http.get(app.getAdminPort(), "/prometheus").body();
      }
      assertThat(before).contains("bothy_event_consumer_lag{bothy_consumer_name=\"push\"}");
      HeldConnections held = HeldConnections.take(assembly().unitOfWork(), POOL);
      try {
        // The gauges cache a read for a second: the scrape below must read again.
        Thread.sleep(1_100);

        long began = System.nanoTime();
        String during = Http.get(app.getAdminPort(), "/prometheus").body();
        java.time.Duration took = java.time.Duration.ofNanos(System.nanoTime() - began);

        assertThat(took).isLessThan(READ_TIMEOUT.plusSeconds(2));
        assertThat(during)
            .as("a read that did not finish leaves the lag series out, never a made-up value")
            .doesNotContain("bothy_event_consumer_lag{")
            .doesNotContain("bothy_event_consumer_pending_age_seconds{")
            .as("an api process runs no round: no registered series (ConsumerMetricsTest)")
            .doesNotContain("bothy_event_consumer_registered{");

        // The pool's connectivity check fails now, after database.connectionTimeout.
        Http.Response health = Http.get(app.getAdminPort(), "/healthcheck");
        assertThat(health.status()).isEqualTo(500);
        assertThat(health.body())
            .contains("failed: error.type=java.sql.SQLTransientConnectionException")
            .as("no exception message or stack trace on the admin port")
            .doesNotContain("\"stack\"")
            .doesNotContain("Connection is not available")
            .doesNotContain("com.zaxxer");
      } finally {
        held.close();
      }
    } finally {
      try (java.sql.Connection c = PG.owner().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.execute("DELETE FROM event_consumer_cursors");
      }
    }
  }
}
