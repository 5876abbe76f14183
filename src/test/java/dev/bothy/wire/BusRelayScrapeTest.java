package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.BusModule;
import dev.bothy.bus.Streams;
import dev.bothy.platform.lifecycle.Role;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.Http;
import dev.bothy.testing.NatsServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.config.BothyConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A live scrape of a process whose relay has published: the relay's publish time is a histogram
 * with buckets, and the whole scrape passes {@code promtool check metrics}.
 */
class BusRelayScrapeTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void the_publish_time_is_scraped_as_a_histogram_that_passes_promtool() throws Exception {
    DropwizardTestSupport<BothyConfiguration> app =
        new DropwizardTestSupport<>(
            BothyApplication.class,
            (String) null,
            (String) null,
            application -> new RoleCommand(application, Role.API, "test"),
            ConfigOverride.config("database.url", PG::jdbcUrl),
            ConfigOverride.config("bus.nats.url", NATS.url()),
            ConfigOverride.config("bus.relay.pollInterval", "100ms"),
            ConfigOverride.config("bus.relay.publishAckTimeout", "1s"),
            ConfigOverride.config("server.applicationConnectors[0].port", "0"),
            ConfigOverride.config("server.adminConnectors[0].port", "0"));
    app.before();
    try {
      Assembly assembly = app.<BothyApplication>getApplication().assembly();
      BusModule bus = assembly.bus().orElseThrow();
      assembly
          .unitOfWork()
          .run(() -> assembly.appender().append(EventLogFixture.drafts(UUID.randomUUID(), 3)));
      long head = assembly.eventLog().head();
      Instant end = Instant.now().plus(WITHIN);
      while (streamCount(bus) != head
          || app.getEnvironment().metrics().getTimers().get(BusRelayMetrics.PUBLISH).getCount()
              == 0) {
        assertThat(Instant.now()).as("the relay published the events").isBefore(end);
        Thread.sleep(20);
      }

      String scrape = Http.get(app.getAdminPort(), "/prometheus").body();

      assertThat(scrape)
          .contains("# TYPE bothy_bus_relay_publish_seconds histogram")
          .contains("bothy_bus_relay_publish_seconds_bucket{le=\"0.001\"}")
          .contains("bothy_bus_relay_publish_seconds_bucket{le=\"5.0\"}")
          .contains("bothy_bus_relay_publish_seconds_bucket{le=\"+Inf\"} 1")
          .contains("bothy_bus_relay_publish_seconds_count 1")
          .contains("bothy_bus_relay_publish_seconds_sum ")
          .doesNotContain("bothy_bus_relay_publish_seconds{quantile=");
      assertThat(AdminPortTest.promtoolProblems(scrape)).as("promtool check metrics").isEmpty();
    } finally {
      app.after();
    }
  }

  private static long streamCount(BusModule bus) {
    try {
      return bus.management().getStreamInfo(Streams.EVENTS).getStreamState().getMsgCount();
    } catch (Exception e) {
      return -1;
    }
  }
}
