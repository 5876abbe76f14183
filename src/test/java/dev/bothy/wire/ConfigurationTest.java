package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigurationTest {
  @TempDir Path dir;

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "config", ".yml");
    Files.writeString(file, yaml);
    return file;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown key | database:\\n  colour: blue | database.colour",
        "negative pool size | database:\\n  maxPoolSize: -1 | database.maxPoolSize",
        "oversized pool | database:\\n  maxPoolSize: 100000 | database.maxPoolSize",
        "zero statement timeout | database:\\n  statementTimeout: 0s | database.statementTimeout",
        "malformed duration | database:\\n  lockTimeout: 5 parsecs | database.lockTimeout",
        "not a number | database:\\n  txMaxAttempts: many | database.txMaxAttempts",
        "zero attempts | database:\\n  txMaxAttempts: 0 | database.txMaxAttempts",
        "remote url without password | database:\\n  url: jdbc:postgresql://db.example.com:5432/bothy"
            + " | database.password",
        "not a PostgreSQL url | database:\\n  url: jdbc:mysql://127.0.0.1/bothy | database.url",
        "multi-host url with a remote host and no password | database:\\n"
            + "  url: 'jdbc:postgresql://127.0.0.1:5432,db2.example.com:5432/bothy'"
            + " | database.password is required",
        "unparsable url | database:\\n  url: 'jdbc:postgresql://[::1/bothy'"
            + " | database.url is not a valid PostgreSQL JDBC URL",
        "blank user | database:\\n  user: '' | database.user",
        "lock timeout not below statement timeout | database:\\n  lockTimeout: 30s\\n"
            + "  statementTimeout: 10s | database.lockTimeout must be shorter than"
            + " database.statementTimeout",
        "retry base above max | database:\\n  txRetryBaseDelay: 5s\\n  txRetryMaxDelay: 1s"
            + " | database.txRetryBaseDelay must not exceed database.txRetryMaxDelay",
        "embedded port out of range | database:\\n  embedded:\\n    port: 70000"
            + " | database.embedded.port",
        "zero shutdown budget | shutdown:\\n  totalTimeout: 0s | shutdown.totalTimeout",
        "pool wait below Hikari's minimum | database:\\n  connectionTimeout: 10ms"
            + " | database.connectionTimeout",
        "no connections to a webhook target | webhooks:\\n  maxConnectionsPerTarget: 0"
            + " | webhooks.maxConnectionsPerTarget",
        "more connections per webhook target than in all | webhooks:\\n  maxConnections: 10\\n"
            + "  maxConnectionsPerTarget: 20 | webhooks.maxConnectionsPerTarget must not exceed"
            + " webhooks.maxConnections",
        "connection wait below its minimum | webhooks:\\n  connectionWait: 5ms"
            + " | webhooks.connectionWait",
        "connection wait not below the request timeout | webhooks:\\n  requestTimeout: 2s\\n"
            + "  connectionWait: 2s | webhooks.connectionWait must be shorter than"
            + " webhooks.requestTimeout",
        "queue name not a word | jobs:\\n  queues:\\n    Web-Hooks: 2 | jobs.queues: 'Web-Hooks'",
        "queue without workers | jobs:\\n  queues:\\n    default: 0 | jobs.queues.default must be",
        "job timeout not below the rescue age | jobs:\\n  defaultTimeout: 2h"
            + " | jobs.defaultTimeout must be shorter than jobs.rescueAfter",
        "jobs budget not below the shutdown budget | shutdown:\\n  totalTimeout: 5s"
            + " | shutdown.jobsTimeout must be shorter than shutdown.totalTimeout",
        "consumer alert not below the retention | consumer:\\n  pendingAlertAfter: 30d"
            + " | consumer.pendingAlertAfter must be shorter than sync.eventRetention",
        "zero consumer batch | consumer:\\n  batchSize: 0 | consumer.batchSize",
        "idempotency kept longer than the events | api:\\n  idempotencyRetention: 31d"
            + " | api.idempotencyRetention must be shorter than sync.eventRetention",
        "removed consumer stop budget | shutdown:\\n  consumersTimeout: 5s"
            + " | shutdown.consumersTimeout",
        "nats token without a url | bus:\\n  nats:\\n    token: robin-token"
            + " | bus.nats.token or bus.nats.credsFile is set but bus.nats.url is not",
        "nats stream kept shorter than the log | bus:\\n  nats:\\n    url: nats://127.0.0.1:4"
            + "\\n    stream:\\n      maxAge: 2d | bus.nats.stream.maxAge must be at least"
            + " sync.eventRetention",
        "duplicate window below the seed's | bus:\\n  nats:\\n    stream:\\n"
            + "      duplicateWindow: 1m | bus.nats.stream.duplicateWindow",
        "ack timeout not below the duplicate window | bus:\\n  relay:\\n"
            + "    publishAckTimeout: 5m | bus.relay.publishAckTimeout must be shorter than"
            + " bus.nats.stream.duplicateWindow",
        "fetch wait below its minimum, in the key's syntax | bus:\\n  consumers:\\n"
            + "    fetchWait: 0s | bus.consumers.fetchWait must be at least 1s",
        "lease shorter than a window | bus:\\n  relay:\\n    leaseTimeout: 2s"
            + " | bus.relay.leaseTimeout must be at least twice bus.relay.pollInterval",
      })
  void a_bad_configuration_stops_the_start_with_a_non_zero_exit_and_a_message_naming_the_key(
      String name, String yaml, String expected) throws Exception {
    Path config = write(yaml.replace("\\n", "\n"));

    try (ChildJvm child =
        ChildJvm.start(
            BothyApplication.class.getName(), dir, List.of(), Map.of(), "all", config.toString())) {
      ChildJvm.Result result = child.await(Duration.ofSeconds(60));

      assertThat(result.exitCode()).as(name).isNotZero();
      assertThat(result.output()).as(name).contains(expected);
    }
    assertThat(dir.resolve("bothy-data")).as(name + ": nothing was started").doesNotExist();
  }

  @Test
  void a_key_given_twice_is_refused_naming_it() throws IOException {
    Path config = write("database:\n  maxPoolSize: 5\n  maxPoolSize: 6\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err()).contains("database.maxPoolSize is given twice");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown level | logging:\\n  level: LOUD | logging.level",
        "unknown level of a logger | logging:\\n  loggers:\\n    dev.bothy: TRACEE"
            + " | logging.loggers.dev.bothy",
      })
  void a_log_level_logback_does_not_know_is_refused(String name, String yaml, String key)
      throws IOException {
    Path config = write(yaml.replace("\\n", "\n"));

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).as(name).isFalse();
    assertThat(outcome.err())
        .as(name)
        .contains(key + " must be one of OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL");
  }

  @Test
  void every_level_logback_knows_passes_including_off_which_yaml_reads_as_false()
      throws IOException {
    Path config =
        write(
            "logging:\n  level: OFF\n  loggers:\n    dev.bothy: debug\n    org.eclipse.jetty:\n"
                + "      level: WARN\n    io.zonky: off\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).as(outcome.err()).isTrue();
  }

  @Test
  void numbers_and_flags_from_system_properties_are_still_read_as_such() throws IOException {
    // -Ddw. overrides reach the configuration as text; they must keep working for numbers and
    // flags, so text stays readable as a number where a fraction does not.
    Path config = write("database:\n  maxPoolSize: 5\n");
    System.setProperty("dw.database.maxPoolSize", "0");
    System.setProperty("dw.webhooks.allowPlainHttp", "true");
    CommandLine.Outcome outcome;
    try {
      outcome = CommandLine.run("check", config.toString());
    } finally {
      System.clearProperty("dw.database.maxPoolSize");
      System.clearProperty("dw.webhooks.allowPlainHttp");
    }

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .contains("database.maxPoolSize must be greater than or equal to 1")
        .doesNotContain("cannot take the value given");
  }

  @Test
  void malformed_yaml_names_the_file_and_the_position() throws IOException {
    Path config = write("database:\n  url: [jdbc:postgresql://127.0.0.1/bothy\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err()).contains("Malformed YAML").contains("line");
  }

  @Test
  void malformed_yaml_never_shows_the_line_that_may_hold_a_password() throws IOException {
    Path config =
        write(
            "database:\n  url: jdbc:postgresql://db.example.com/bothy\n  password: alex-secret: zebra\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .contains("Malformed YAML at line 3")
        .doesNotContain("alex-secret")
        .doesNotContain("zebra");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "duration | database:\\n  statementTimeout: Robin-Secret-Pw-123 | database.statementTimeout"
            + " | a duration",
        "whole number | database:\\n  maxPoolSize: Robin-Secret-Pw-123 | database.maxPoolSize"
            + " | a whole number",
        "mapping | jobs:\\n  queues: Robin-Secret-Pw-123 | jobs.queues | a mapping",
        "list item | webhooks:\\n  allowedNetworks:\\n    - [Robin-Secret-Pw-123]"
            + " | webhooks.allowedNetworks[0] | text",
        // A fraction would be cut to its whole part, a number read as a flag.
        "fraction for a whole number | database:\\n  maxPoolSize: 2.9 | database.maxPoolSize"
            + " | a whole number",
        "number for a flag | webhooks:\\n  allowPlainHttp: 1 | webhooks.allowPlainHttp"
            + " | true or false",
        "whole number out of range | sync:\\n  maxPayloadBytes: 99999999999"
            + " | sync.maxPayloadBytes | a whole number from -2147483648 to 2147483647",
      })
  void a_value_of_the_wrong_type_is_named_by_its_key_and_never_shown(
      String name, String yaml, String key, String expected) throws IOException {
    Path config = write(yaml.replace("\\n", "\n"));

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).as(name).isFalse();
    assertThat(outcome.err()).as(name).contains(key).contains(expected);
    for (Throwable t = outcome.failure().orElseThrow(); t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).as(name).doesNotContain("Robin-Secret");
    }
    assertThat(outcome.err() + outcome.out()).as(name).doesNotContain("Robin-Secret");
  }

  @Test
  void check_refuses_the_simple_server_that_every_role_refuses() throws IOException {
    Path config = write("server:\n  type: simple\n  connector:\n    type: http\n    port: 0\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err()).contains("server.type must be default");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "all, all",
    "worker, worker",
    "api, api",
    "db migrate, db migrate",
    "jobs list, jobs list",
    "bus dead list, bus dead",
    "check, check",
  })
  void an_unset_environment_variable_is_named_in_one_line_without_a_stack_trace(
      String command, String prefix) throws IOException {
    // Nobody sets this name: the substitution must fail.
    String variable = "BOTHY_TEST_VARIABLE_NOBODY_SETS";
    assertThat(System.getenv(variable)).isNull();
    Path config = write("database:\n  password: ${" + variable + "}\n");
    List<String> args = new java.util.ArrayList<>(List.of(command.split(" ")));
    args.add(config.toString());

    CommandLine.Outcome outcome = CommandLine.run(args.toArray(String[]::new));

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err().strip())
        .isEqualTo(
            prefix
                + ": the configuration uses ${"
                + variable
                + "}, but the environment variable "
                + variable
                + " is not set: set it, or write the value into the file");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "list element | api:\\n  tokens:\\n    - name: alex\\n      sha256: "
            + "bf911f2ed0e7b39d70127b4158247bcdfe8db58d8a6681d8699cd1774aec1c4d\\n"
            + "      scopes: [events:reed] | api.tokens[0].scopes[0] must be",
        "cross-key check | database:\\n  url: jdbc:postgresql://db.example.com:5432/bothy"
            + " | database.password is required",
      })
  void each_error_line_is_the_key_then_the_rule_in_plain_words(
      String name, String yaml, String line) throws IOException {
    Path config = write(yaml.replace("\\n", "\n"));

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).as(name).isFalse();
    assertThat(outcome.err()).as(name).contains("\n  * " + line).doesNotContain("<list element>");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // Blank is not absent: `url: ${NATS_URL}` with an empty variable must not turn NATS off.
        "blank | \"\" | bus.nats.url must not be blank: remove the key to run without NATS",
        "port out of range | nats://127.0.0.1:99999"
            + " | bus.nats.url has a port outside 1 to 65535",
        "port zero | nats://127.0.0.1:0 | bus.nats.url has a port outside 1 to 65535",
        "second server's port | 'nats://127.0.0.1:4222,nats://127.0.0.1:70000'"
            + " | bus.nats.url has a port outside 1 to 65535",
      })
  void check_refuses_a_nats_url_no_connection_can_use(String name, String url, String line)
      throws IOException {
    Path config = write("bus:\n  nats:\n    url: " + url + "\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).as(name).isFalse();
    assertThat(outcome.err()).as(name).contains("  * " + line);
  }

  @Test
  void db_migrate_refuses_a_bad_value_in_one_line_without_a_stack_trace() throws IOException {
    Path config = write("database:\n  statementTimeout: Robin-Secret-Pw-123\n");

    CommandLine.Outcome outcome = CommandLine.run("db", "migrate", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err())
        .contains("database.statementTimeout")
        .doesNotContain("Robin-Secret")
        .doesNotContain("\tat ");
  }

  @Test
  void a_role_refuses_a_bad_value_in_one_message_without_a_stack_trace() throws Exception {
    Path config = write("database:\n  maxPoolSize: Robin-Secret-Pw-123\n");

    try (ChildJvm child =
        ChildJvm.start(
            BothyApplication.class.getName(), dir, List.of(), Map.of(), "all", config.toString())) {
      ChildJvm.Result result = child.await(Duration.ofSeconds(60));

      assertThat(result.exitCode()).isNotZero();
      assertThat(result.output())
          .contains("database.maxPoolSize")
          .doesNotContain("Robin-Secret")
          .doesNotContain("\tat ")
          .doesNotContain("Caused by");
    }
  }

  @Test
  void a_password_never_appears_in_a_configuration_error() throws IOException {
    Path config =
        write(
            "database:\n  url: jdbc:postgresql://db.example.com/bothy\n"
                + "  password: alex-secret-42\n  migrationPassword: sam-secret-43\n"
                + "  maxPoolSize: 0\n  lockTimeout: 1m\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err() + outcome.out())
        .contains("database.maxPoolSize")
        .contains("database.lockTimeout")
        .doesNotContain("alex-secret-42")
        .doesNotContain("sam-secret-43");
  }

  @Test
  void a_nats_credential_never_appears_in_a_configuration_error() throws IOException {
    Path config =
        write(
            "bus:\n  nats:\n    url: nats://alex:alex-nats-secret-5@nats.example.com:4222\n"
                + "    token: sam-nats-token-6\n    credsFile: /etc/bothy/robin.creds\n"
                + "  relay:\n    window: 900\n    batchSize: 10\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err() + outcome.out())
        .contains("bus.nats.url must not hold credentials")
        .contains("set at most one of bus.nats.token and bus.nats.credsFile")
        .contains("bus.relay.window must not exceed bus.relay.batchSize")
        .doesNotContain("alex-nats-secret-5")
        .doesNotContain("sam-nats-token-6")
        .doesNotContain("nats.example.com");
  }

  @Test
  void a_keep_alive_not_shorter_than_the_ack_wait_or_a_batch_over_the_pending_limit_is_refused()
      throws IOException {
    Path config =
        write(
            "bus:\n  consumers:\n    ackWait: 10s\n    keepAliveInterval: 10s\n"
                + "    fetchBatch: 8\n    maxAckPending: 4\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err() + outcome.out())
        .contains("bus.consumers.keepAliveInterval must be shorter than bus.consumers.ackWait")
        .contains("bus.consumers.fetchBatch must not exceed bus.consumers.maxAckPending");
  }

  @Test
  void a_url_that_is_not_a_nats_url_is_refused_without_showing_it() throws IOException {
    Path config = write("bus:\n  nats:\n    url: 'http://nats.example.com:4222'\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err() + outcome.out())
        .contains("bus.nats.url is not a NATS URL")
        .doesNotContain("nats.example.com");
  }

  @Test
  void a_good_configuration_passes_the_check() throws IOException {
    Path config =
        write(
            "database:\n  url: jdbc:postgresql://127.0.0.1:5432/bothy\n  maxPoolSize: 4\n"
                + "  lockTimeout: 2s\n  statementTimeout: 10s\nshutdown:\n  totalTimeout: 20s\n"
                + "bus:\n  nats:\n    url: 'nats://127.0.0.1:4222,tls://nats.example.com:4222'\n"
                + "    token: robin-token\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.failure()).isEmpty();
  }

  @Test
  void environment_variables_are_substituted_and_a_missing_one_is_an_error() throws IOException {
    Path config = write("database:\n  password: ${BOTHY_TEST_UNSET_VARIABLE_ROBIN}\n");

    CommandLine.Outcome outcome = CommandLine.run("check", config.toString());

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err()).contains("BOTHY_TEST_UNSET_VARIABLE_ROBIN");
  }
}
