package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.platform.lifecycle.Role;
import dev.bothy.platform.pg.PgTx;
import dev.bothy.testing.Http;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@code all} role inside the test JVM, against the test database. */
class InProcessAppTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static DropwizardTestSupport<BothyConfiguration> app;

  @BeforeAll
  static void start() throws Exception {
    app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            (String) null,
            (String) null,
            application -> new RoleCommand(application, Role.ALL, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl),
            ConfigOverride.config("server.applicationConnectors[0].port", "0"),
            ConfigOverride.config("server.adminConnectors[0].port", "0"));
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
  void without_a_nats_url_no_bus_is_built_and_nothing_connects_to_nats() {
    assertThat(assembly().bus()).isEmpty();
  }

  @Test
  void the_event_reference_is_up_to_date_with_the_catalogue_and_the_registered_handlers()
      throws Exception {
    Path reference =
        Path.of(System.getProperty("bothy.test.projectDir", "."))
            .resolve("docs/reference/events.md");
    String rendered =
        dev.bothy.sync.app.EventReference.render(
            assembly().sync().eventTypes(),
            EventRegistrations.handlersByType(assembly().busDispatch().consumers()));
    if (Boolean.getBoolean("bothy.regenerate")) {
      Files.writeString(reference, rendered, StandardCharsets.UTF_8);
    }

    assertThat(assembly().sync().eventTypes().all())
        .isEqualTo(EventRegistrations.catalogue().all());
    assertThat(Files.readString(reference, StandardCharsets.UTF_8))
        .as(
            "docs/reference/events.md is stale; regenerate it with mvn -B test"
                + " -Dtest=InProcessAppTest -Dbothy.regenerate=true")
        .isEqualTo(rendered);
  }

  @Test
  void the_flow_files_name_every_registered_handler_of_the_events_they_emit() throws Exception {
    java.util.Map<String, java.util.Map<String, List<String>>> flows =
        dev.bothy.testing.FlowFiles.read(dev.bothy.testing.FlowFiles.DIRECTORY);
    java.util.Set<String> types =
        assembly().sync().eventTypes().all().stream()
            .map(dev.bothy.sync.EventType::name)
            .collect(java.util.stream.Collectors.toSet());

    assertThat(flows).containsKey("00-system-ping.md");
    assertThat(
            dev.bothy.testing.FlowFiles.problems(
                flows,
                EventRegistrations.handlersByType(assembly().busDispatch().consumers()),
                types))
        .isEmpty();
  }

  @Test
  void the_registered_phase_hooks_match_the_golden_file() throws Exception {
    Path golden = Path.of("src/test/resources/golden/phase-hooks.txt");
    List<String> expected =
        Files.readAllLines(golden, StandardCharsets.UTF_8).stream()
            .filter(line -> !line.isBlank() && !line.startsWith("#"))
            .toList();

    assertThat(assembly().hooks().frozen()).isTrue();
    assertThat(assembly().hooks().registrations()).isEqualTo(expected);
  }

  @Test
  void counters_are_used_only_by_the_registered_phase_hooks() {
    com.tngtech.archunit.core.domain.JavaClasses main =
        new com.tngtech.archunit.core.importer.ClassFileImporter()
            .withImportOption(
                new com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests())
            .importPackages("dev.bothy");

    dev.bothy.arch.ArchitectureAccess.countersAreUsedOnlyByPhaseHooks(
            assembly().hooks().hookClassNames())
        .check(main);
  }

  @Test
  void an_appended_event_reaches_the_tail_and_the_metrics() throws Exception {
    long head = assembly().eventLog().head();
    try (dev.bothy.sync.LogTail.Subscription sub = assembly().tail().subscribe(head)) {
      java.util.UUID robin = dev.bothy.kernel.Ids.newId();
      assembly()
          .unitOfWork()
          .run(
              () ->
                  assembly()
                      .appender()
                      .append(
                          new dev.bothy.sync.EventDraft(
                              "settings.updated",
                              new dev.bothy.sync.ResourceRef("user", robin),
                              java.util.Optional.of(robin),
                              new dev.bothy.sync.SettingsUpdated(java.util.List.of("locale")))));

      dev.bothy.sync.TailSignal signal = sub.poll(java.time.Duration.ofSeconds(20)).orElseThrow();
      assertThat(((dev.bothy.sync.TailSignal.Delivered) signal).event().seq()).isEqualTo(head + 1);
    }
    // The log gauges read the database within database.metricsReadTimeout and cache the read
    // for a second: a scrape can miss them for a moment.
    String prometheus =
        Http.getUntil(
            app.getAdminPort(),
            "/prometheus",
            body ->
                body.contains("bothy_event_log_head_seq")
                    && body.contains("bothy_event_log_min_retained_seq"));
    assertThat(prometheus)
        .contains("bothy_event_log_head_seq")
        .contains("bothy_event_log_min_retained_seq")
        .contains("bothy_event_log_appended_events")
        .contains("bothy_event_log_seq_lock_held_seconds");
  }

  @Test
  void the_all_role_runs_the_partition_maintenance_as_a_job_and_exports_the_job_metrics()
      throws Exception {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    List<dev.bothy.platform.jobs.JobView> done = List.of();
    while (done.isEmpty() && System.nanoTime() < deadline) {
      done =
          assembly()
              .jobs()
              .admin()
              .list(
                  java.util.Optional.of(dev.bothy.platform.jobs.JobState.COMPLETED),
                  java.util.Optional.of("sync.partition_maintenance"),
                  10);
      Thread.sleep(50);
    }
    assertThat(done)
        .as("the first maintenance pass inserted the periodic job, a worker ran it")
        .hasSize(1);
    assertThat(done.get(0).uniqueKey()).get().asString().startsWith("periodic:");
    List<dev.bothy.platform.jobs.JobView> cleaned = List.of();
    while (cleaned.isEmpty() && System.nanoTime() < deadline) {
      cleaned =
          assembly()
              .jobs()
              .admin()
              .list(
                  java.util.Optional.of(dev.bothy.platform.jobs.JobState.COMPLETED),
                  java.util.Optional.of("api.idempotency_cleanup"),
                  10);
      Thread.sleep(50);
    }
    assertThat(cleaned).as("the idempotency key cleaner ran too").hasSize(1);
    List<dev.bothy.platform.jobs.JobView> attempts = List.of();
    while (attempts.isEmpty() && System.nanoTime() < deadline) {
      attempts =
          assembly()
              .jobs()
              .admin()
              .list(
                  java.util.Optional.of(dev.bothy.platform.jobs.JobState.COMPLETED),
                  java.util.Optional.of("webhooks.attempt_retention"),
                  10);
      Thread.sleep(50);
    }
    assertThat(attempts).as("the webhook attempt retention ran too").hasSize(1);
    List<dev.bothy.platform.jobs.JobView> deliveries = List.of();
    while (deliveries.isEmpty() && System.nanoTime() < deadline) {
      deliveries =
          assembly()
              .jobs()
              .admin()
              .list(
                  java.util.Optional.of(dev.bothy.platform.jobs.JobState.COMPLETED),
                  java.util.Optional.of("bus.delivery_retention"),
                  10);
      Thread.sleep(50);
    }
    assertThat(deliveries).as("the bus delivery retention ran too").hasSize(1);

    // The job counts are a cached database read, and a worker updates its work timer after the
    // completion can already be seen: wait for the scrape that shows both jobs.
    String prometheus =
        Http.getUntil(
            app.getAdminPort(),
            "/prometheus",
            body ->
                body.contains(
                        "bothy_jobs{bothy_job_state=\"completed\",bothy_queue=\"maintenance\"} 4.0")
                    && body.contains(
                        "bothy_jobs_work_seconds_count{bothy_job_kind=\"sync.partition_maintenance\"}"));
    assertThat(prometheus)
        .contains("bothy_jobs{bothy_job_state=\"completed\",bothy_queue=\"maintenance\"} 4.0")
        .contains("bothy_jobs{bothy_job_state=\"discarded\",bothy_queue=\"default\"} 0.0")
        .contains("bothy_jobs_work_seconds_count{bothy_job_kind=\"sync.partition_maintenance\"} 1")
        .contains("bothy_jobs_fetch_seconds_count{bothy_queue=\"maintenance\"}")
        .contains("bothy_process_role{bothy_role=\"all\"} 1.0");
  }

  @Test
  void the_instance_record_is_loaded_at_start() {
    assertThat(assembly().instanceRecord().schemaVersion())
        .isEqualTo(dev.bothy.platform.pg.Migrator.SCHEMA_VERSION);
    assertThat(assembly().readiness().names()).doesNotContain("schema_requires_newer_server");
  }

  @Test
  void the_runtime_connects_as_the_app_role_through_the_unit_of_work() {
    String user =
        assembly().unitOfWork().run(() -> PgTx.dsl().fetchValue("select current_user").toString());

    assertThat(user).isEqualTo("bothy_app");
    assertThat(assembly().role()).isEqualTo(Role.ALL);
  }

  @Test
  void readiness_lists_the_database_and_passes() throws Exception {
    assertThat(assembly().readiness().names()).contains("database");
    assertThat(assembly().readiness().failing()).isEmpty();
    assertThat(Http.get(app.getAdminPort(), "/readyz").status()).isEqualTo(200);
    assertThat(Http.get(app.getAdminPort(), "/healthz").status()).isEqualTo(200);
    assertThat(Http.get(app.getAdminPort(), "/healthcheck").body())
        .contains("bothy.pool.ConnectivityCheck");
  }

  @Test
  void readiness_answers_503_with_only_the_names_of_the_failing_checks() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean ready =
        new java.util.concurrent.atomic.AtomicBoolean();
    assembly().readiness().register("test-not-ready", ready::get);
    try {
      Http.Response response = Http.get(app.getAdminPort(), "/readyz");

      assertThat(response.status()).isEqualTo(503);
      assertThat(response.body())
          .isEqualTo("{\"status\":\"not_ready\",\"failing\":[\"test-not-ready\"]}");
    } finally {
      ready.set(true);
    }
  }
}
