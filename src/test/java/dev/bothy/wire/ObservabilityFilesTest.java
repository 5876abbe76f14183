package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.testing.DebianTool;
import dev.bothy.wire.config.ConsumerConfig;
import dev.bothy.wire.config.WebhooksConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The alert rules and the collector allowlist stay true to the code. */
class ObservabilityFilesTest {
  private static final Path RULES =
      Path.of("infra/observability/prometheus/rules/bothy-alerts.yaml");
  private static final Path RULE_TESTS =
      Path.of("infra/observability/prometheus/tests/bothy-alerts.test.yaml");
  private static final Path COLLECTOR = Path.of("infra/otel/collector.yaml");

  @Test
  void the_alert_rule_unit_tests_pass_in_promtool() throws Exception {
    String out = run(promtool().toString(), "test", "rules", RULE_TESTS.toString());
    assertThat(out).contains("SUCCESS");
  }

  /**
   * promtool from the PATH, or unpacked from Debian's prometheus package into target/tools (its
   * install would start a Prometheus server; the binary alone is enough), so {@code mvn -B verify}
   * needs nothing installed beyond a JDK and Maven on a Debian machine.
   */
  static Path promtool() throws Exception {
    return DebianTool.find("promtool", "prometheus", "usr/bin/promtool", List.of());
  }

  private static String run(String... command) throws Exception {
    return DebianTool.run(Path.of("."), command);
  }

  @Test
  void the_consumer_lag_threshold_equals_the_default_of_its_key() throws Exception {
    String rules = Files.readString(RULES);
    Matcher m =
        Pattern.compile(
                "bothy_event_consumer_pending_age_seconds\\{job=\"bothy\"\\}\\s*\\) > (\\d+)")
            .matcher(rules);
    assertThat(m.find()).as("the BothyEventConsumerLag expression").isTrue();
    assertThat(Long.parseLong(m.group(1)))
        .as("the rule's number is consumer.pendingAlertAfter's default in seconds")
        .isEqualTo(ConsumerConfig.DEFAULT_PENDING_ALERT_AFTER.toSeconds());
  }

  @Test
  void the_webhook_latency_threshold_equals_the_default_of_its_key() throws Exception {
    String rules = Files.readString(RULES);
    Matcher m =
        Pattern.compile(
                "bothy_webhooks_delivery_latency_seconds\\{job=\"bothy\",quantile=\"0.99\"\\}"
                    + "\\s*\\) > (\\d+)")
            .matcher(rules);
    assertThat(m.find()).as("the BothyWebhookDeliveryLatency expression").isTrue();
    assertThat(Long.parseLong(m.group(1)))
        .as("the rule's number is webhooks.deliveryLatencyAlertAfter's default in seconds")
        .isEqualTo(WebhooksConfig.DEFAULT_DELIVERY_LATENCY_ALERT_AFTER.toSeconds());
  }

  @Test
  void every_rule_selects_bothys_own_series_on_one_marked_line() throws Exception {
    List<String> lines = Files.readAllLines(RULES);
    int rules = 0;
    int adapt = 0;
    for (String line : lines) {
      if (line.trim().startsWith("- alert:")) {
        rules++;
      }
      if (line.trim().startsWith("# ADAPT: job=\"bothy\"")) {
        adapt++;
      }
    }
    String text = String.join("\n", lines);
    Matcher exprs = Pattern.compile("expr: >-\n((?:\\s{10}.*\n)+)").matcher(text + "\n");
    int selecting = 0;
    while (exprs.find()) {
      // The job matcher comes first in its selector; more matchers may follow it.
      assertThat(exprs.group(1)).containsPattern("\\{job=\"bothy\"[,}]");
      selecting++;
    }
    assertThat(rules).isEqualTo(8);
    assertThat(selecting).as("rules whose expression selects job=bothy").isEqualTo(rules);
    assertThat(adapt).as("one ADAPT line per rule").isEqualTo(rules);
  }

  @Test
  void the_collector_allowlist_holds_exactly_the_bothy_attribute_keys() throws Exception {
    List<String> lines = Files.readAllLines(COLLECTOR);
    List<String> keys = new ArrayList<>();
    boolean inBothy = false;
    for (String line : lines) {
      String t = line.trim();
      if (t.equals("# Bothy attributes")) {
        inBothy = true;
      } else if (inBothy && t.startsWith("- ")) {
        keys.add(t.substring(2));
      } else if (inBothy) {
        break;
      }
    }
    assertThat(keys).containsExactlyElementsOf(TelemetryNames.ATTRIBUTE_KEYS);
  }
}
