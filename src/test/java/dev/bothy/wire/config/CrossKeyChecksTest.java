package dev.bothy.wire.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CrossKeyChecksTest {

  @Test
  void hosts_are_read_from_single_and_multi_host_urls() {
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://127.0.0.1:5432/bothy"))
        .contains(List.of("127.0.0.1"));
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://DB.example.com/bothy?ssl=true"))
        .contains(List.of("db.example.com"));
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://localhost:5432,db2.example.com:5433/b"))
        .contains(List.of("localhost", "db2.example.com"));
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://[::1]:5432/bothy"))
        .contains(List.of("[::1]"));
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql:bothy")).contains(List.of("localhost"));
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql:///bothy")).contains(List.of("localhost"));
  }

  @Test
  void unparsable_urls_have_no_hosts() {
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql:")).isEqualTo(Optional.empty());
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://[::1/bothy")).isEqualTo(Optional.empty());
    assertThat(CrossKeyChecks.hosts("jdbc:postgresql://:5432/bothy")).isEqualTo(Optional.empty());
    assertThat(CrossKeyChecks.hosts("postgresql://db/bothy")).isEqualTo(Optional.empty());
  }

  private static List<String> problems(String json) throws Exception {
    return CrossKeyChecks.check(
        io.dropwizard.jackson.Jackson.newObjectMapper().readValue(json, BothyConfiguration.class));
  }

  @Test
  void the_consumer_alert_must_fire_before_events_leave_the_retention_window() throws Exception {
    String equal =
        "{\"consumer\":{\"pendingAlertAfter\":\"7d\"},\"sync\":{\"eventRetention\":\"7d\"}}";
    String greater =
        "{\"consumer\":{\"pendingAlertAfter\":\"8d\"},\"sync\":{\"eventRetention\":\"7d\"}}";
    String smaller =
        "{\"consumer\":{\"pendingAlertAfter\":\"6d\"},\"sync\":{\"eventRetention\":\"7d\"}}";
    for (String json : List.of(equal, greater)) {
      assertThat(problems(json))
          .singleElement()
          .asString()
          .contains("consumer.pendingAlertAfter", "sync.eventRetention")
          .doesNotContain("7", "8");
    }
    assertThat(problems(smaller)).isEmpty();
  }

  @Test
  void webhook_keys_are_checked_together_and_the_messages_name_keys_only() throws Exception {
    assertThat(problems("{\"webhooks\":{\"allowedNetworks\":[\"10.0.0.0/8\",\"not-a-cidr\"]}}"))
        .singleElement()
        .asString()
        .contains("webhooks.allowedNetworks")
        .doesNotContain("not-a-cidr");
    assertThat(problems("{\"webhooks\":{\"allowedNetworks\":[\"127.0.0.0/8\",\"fd00::/8\"]}}"))
        .isEmpty();
    assertThat(problems("{\"webhooks\":{\"defaultRateLimit\":300,\"maxRateLimit\":200}}"))
        .singleElement()
        .asString()
        .contains("webhooks.defaultRateLimit", "webhooks.maxRateLimit")
        .doesNotContain("300", "200");
    assertThat(problems("{\"webhooks\":{\"maxConnections\":10,\"maxConnectionsPerTarget\":20}}"))
        .singleElement()
        .asString()
        .contains("webhooks.maxConnectionsPerTarget", "webhooks.maxConnections")
        .doesNotContain("10", "20");
    assertThat(problems("{\"webhooks\":{\"maxConnections\":20,\"maxConnectionsPerTarget\":20}}"))
        .isEmpty();
    assertThat(problems("{\"webhooks\":{\"requestTimeout\":\"2s\",\"connectionWait\":\"2s\"}}"))
        .singleElement()
        .asString()
        .contains("webhooks.connectionWait", "webhooks.requestTimeout");
    assertThat(problems("{\"webhooks\":{\"requestTimeout\":\"2s\",\"connectionWait\":\"1999ms\"}}"))
        .isEmpty();
    assertThat(problems("{\"webhooks\":{\"requestTimeout\":\"1s\"}}"))
        .as("the smallest request timeout fits the default connection wait")
        .isEmpty();
    assertThat(problems("{\"webhooks\":{\"retryAfterCap\":\"2d\",\"disableAfter\":\"2d\"}}"))
        .singleElement()
        .asString()
        .contains("webhooks.retryAfterCap", "webhooks.disableAfter");
    assertThat(problems("{\"jobs\":{\"queues\":{\"default\":4,\"maintenance\":1}}}"))
        .anySatisfy(p -> assertThat(p).contains("jobs.queues", "webhooks"));
    assertThat(
            problems(
                "{\"webhooks\":{\"requestTimeout\":\"5m\",\"jobTimeoutMargin\":\"5m\"},"
                    + "\"jobs\":{\"rescueAfter\":\"10m\"}}"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains(
                        "webhooks.requestTimeout",
                        "webhooks.jobTimeoutMargin",
                        "jobs.rescueAfter"));
  }

  @Test
  void the_default_page_must_fit_in_the_largest_page() throws Exception {
    assertThat(problems("{\"api\":{\"defaultPageSize\":200,\"maxPageSize\":100}}"))
        .singleElement()
        .asString()
        .contains("api.defaultPageSize", "api.maxPageSize")
        .doesNotContain("200", "100");
    assertThat(problems("{\"api\":{\"defaultPageSize\":100,\"maxPageSize\":100}}")).isEmpty();
  }

  @Test
  void token_names_and_hashes_are_unique_and_the_message_shows_no_hash() throws Exception {
    String hash = "a".repeat(64);
    String other = "b".repeat(64);
    String json =
        "{\"api\":{\"tokens\":["
            + "{\"name\":\"alex\",\"sha256\":\""
            + hash
            + "\",\"scopes\":[\"events:read\"]},"
            + "{\"name\":\"alex\",\"sha256\":\""
            + other
            + "\",\"scopes\":[\"events:read\"]},"
            + "{\"name\":\"sam\",\"sha256\":\""
            + hash
            + "\",\"scopes\":[\"events:read\"]}]}}";
    List<String> problems = problems(json);
    assertThat(problems)
        .containsExactly(
            "api.tokens[1].name is taken by an earlier token",
            "api.tokens[2].sha256 is the hash of an earlier token");
    assertThat(String.join(" ", problems)).doesNotContain(hash, other);
  }

  @Test
  void a_tail_subscriber_buffer_must_hold_one_tail_page() throws Exception {
    // A page larger than the buffer would drop every subscriber, fast or slow, on one burst.
    assertThat(problems("{\"sync\":{\"tailBatchSize\":500,\"tailSubscriberBuffer\":499}}"))
        .singleElement()
        .asString()
        .contains("sync.tailSubscriberBuffer", "sync.tailBatchSize")
        .doesNotContain("499", "500");
    assertThat(problems("{\"sync\":{\"tailBatchSize\":500,\"tailSubscriberBuffer\":500}}"))
        .isEmpty();
  }

  @Test
  void delivery_rows_must_outlive_the_log_and_with_nats_the_stream() throws Exception {
    assertThat(
            problems(
                "{\"bus\":{\"dispatch\":{\"deliveryRetention\":\"6d\"}},"
                    + "\"sync\":{\"eventRetention\":\"7d\"}}"))
        .singleElement()
        .asString()
        .contains("bus.dispatch.deliveryRetention", "sync.eventRetention")
        .doesNotContain("6", "7");
    String nats =
        "{\"bus\":{\"nats\":{\"url\":\"nats://127.0.0.1:4222\",\"stream\":{\"maxAge\":\"9d\"}},"
            + "\"dispatch\":{\"deliveryRetention\":\"8d\"}},\"sync\":{\"eventRetention\":\"7d\"}}";
    assertThat(problems(nats))
        .singleElement()
        .asString()
        .contains("bus.dispatch.deliveryRetention", "bus.nats.stream.maxAge");
    assertThat(problems(nats.replace("8d", "9d"))).isEmpty();
    assertThat(problems(nats.replace("nats://127.0.0.1:4222", "").replace("\"url\":\"\",", "")))
        .as("without bus.nats.url the stream's age does not bind the delivery rows")
        .isEmpty();
  }

  @Test
  void the_defaults_give_every_webhooks_worker_a_connection_and_pass_the_checks() throws Exception {
    // A worker beyond webhooks.maxConnections waits webhooks.connectionWait and snoozes its job
    // whenever the deliveries in flight go to many receivers: a default that wastes workers so.
    BothyConfiguration defaults =
        io.dropwizard.jackson.Jackson.newObjectMapper().readValue("{}", BothyConfiguration.class);
    int workers = defaults.jobs().queues().get("webhooks");
    assertThat(workers).isEqualTo(JobsConfig.WEBHOOKS_QUEUE_WORKERS);
    assertThat(workers).isLessThanOrEqualTo(defaults.webhooks().maxConnections());
    assertThat(defaults.webhooks().maxConnectionsPerTarget()).isLessThan(workers);
    assertThat(CrossKeyChecks.check(defaults)).isEmpty();
  }

  @Test
  void the_maintenance_jobs_need_their_queue() throws Exception {
    // The map replaces the defaults: a file listing only the queues it tunes loses maintenance.
    assertThat(problems("{\"jobs\":{\"queues\":{\"bus\":20,\"webhooks\":100}}}"))
        .singleElement()
        .asString()
        .contains("jobs.queues", "maintenance", "default, maintenance, webhooks and bus");
    assertThat(problems("{\"jobs\":{\"queues\":{\"maintenance\":1,\"bus\":20,\"webhooks\":100}}}"))
        .isEmpty();
  }

  @Test
  void the_dispatch_jobs_need_their_queue_and_a_timeout_below_the_rescue() throws Exception {
    assertThat(problems("{\"jobs\":{\"queues\":{\"default\":1,\"maintenance\":1,\"webhooks\":1}}}"))
        .singleElement()
        .asString()
        .contains("jobs.queues", "bus.dispatch");
    assertThat(
            problems(
                "{\"jobs\":{\"rescueAfter\":\"10m\"},\"bus\":{\"dispatch\":{\"jobTimeout\":\"10m\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.dispatch.jobTimeout", "jobs.rescueAfter");
  }

  @Test
  void the_stream_must_keep_events_as_long_as_the_log_but_only_with_nats() throws Exception {
    String shorter =
        "{\"bus\":{\"nats\":{\"url\":\"nats://127.0.0.1:4222\",\"stream\":{\"maxAge\":\"6d\"}}},"
            + "\"sync\":{\"eventRetention\":\"7d\"}}";
    assertThat(problems(shorter))
        .singleElement()
        .asString()
        .contains("bus.nats.stream.maxAge", "sync.eventRetention")
        .doesNotContain("6", "7");
    assertThat(problems(shorter.replace("6d", "7d"))).isEmpty();
    assertThat(
            problems(
                "{\"bus\":{\"nats\":{\"stream\":{\"maxAge\":\"6d\"}}},"
                    + "\"sync\":{\"eventRetention\":\"7d\"}}"))
        .as("without bus.nats.url the stream key is not checked against the log")
        .isEmpty();
  }

  @Test
  void the_duplicate_window_fits_the_max_age_and_outlasts_the_publish_ack_timeout()
      throws Exception {
    assertThat(
            problems(
                "{\"bus\":{\"nats\":{\"stream\":{\"maxAge\":\"1h\",\"duplicateWindow\":\"2h\"}}}}"))
        .singleElement()
        .asString()
        .contains("bus.nats.stream.duplicateWindow", "bus.nats.stream.maxAge");
    assertThat(
            problems(
                "{\"bus\":{\"nats\":{\"stream\":{\"duplicateWindow\":\"2m\"}},"
                    + "\"relay\":{\"publishAckTimeout\":\"2m\",\"leaseTimeout\":\"10m\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.relay.publishAckTimeout", "bus.nats.stream.duplicateWindow");
  }

  @Test
  void the_lease_outlasts_two_polls_and_a_window() throws Exception {
    assertThat(
            problems(
                "{\"bus\":{\"relay\":{\"pollInterval\":\"2s\",\"publishAckTimeout\":\"5s\","
                    + "\"leaseTimeout\":\"8s\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.relay.leaseTimeout", "bus.relay.pollInterval", "bus.relay.publishAckTimeout")
        .doesNotContain("8s");
    assertThat(
            problems(
                "{\"bus\":{\"relay\":{\"pollInterval\":\"2s\",\"publishAckTimeout\":\"5s\","
                    + "\"leaseTimeout\":\"9s\"}}}"))
        .isEmpty();
  }

  @Test
  void nats_urls_carry_no_credentials_and_name_a_host() throws Exception {
    for (String url :
        List.of(
            "nats://127.0.0.1:4222",
            "tls://nats.example.com:4222",
            "nats://a.example.com:4222, nats://b.example.com:4222")) {
      assertThat(problems("{\"bus\":{\"nats\":{\"url\":\"" + url + "\"}}}")).as(url).isEmpty();
    }
    assertThat(problems("{\"bus\":{\"nats\":{\"url\":\"nats://robin:pw-77@nats.example.com\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.nats.url must not hold credentials")
        .doesNotContain("pw-77", "robin");
    for (String bad :
        List.of("127.0.0.1:4222", "http://nats.example.com", "nats://", "nats://a.example.com,")) {
      assertThat(problems("{\"bus\":{\"nats\":{\"url\":\"" + bad + "\"}}}"))
          .as(bad)
          .singleElement()
          .asString()
          .contains("bus.nats.url is not a NATS URL");
    }
  }

  @Test
  void one_nats_credential_at_most_and_none_without_a_url() throws Exception {
    assertThat(
            problems(
                "{\"bus\":{\"nats\":{\"url\":\"nats://127.0.0.1:4222\",\"token\":\"t-1\","
                    + "\"credsFile\":\"/etc/bothy/alex.creds\"}}}"))
        .singleElement()
        .asString()
        .contains("at most one of bus.nats.token and bus.nats.credsFile")
        .doesNotContain("t-1");
    assertThat(problems("{\"bus\":{\"nats\":{\"token\":\"t-1\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.nats.url is not");
  }

  @Test
  void the_relay_window_fits_its_batch_and_the_reconnect_wait_its_cap() throws Exception {
    assertThat(problems("{\"bus\":{\"relay\":{\"batchSize\":10,\"window\":11}}}"))
        .singleElement()
        .asString()
        .contains("bus.relay.window", "bus.relay.batchSize");
    assertThat(
            problems(
                "{\"bus\":{\"nats\":{\"reconnectWait\":\"2m\",\"reconnectBackoffCap\":\"1m\"}}}"))
        .singleElement()
        .asString()
        .contains("bus.nats.reconnectWait", "bus.nats.reconnectBackoffCap");
  }
}
