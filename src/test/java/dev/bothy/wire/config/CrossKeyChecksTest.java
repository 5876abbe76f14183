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
}
