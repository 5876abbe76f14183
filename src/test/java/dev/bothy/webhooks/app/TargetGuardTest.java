package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.WebhookTargetRefused;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetGuardTest {
  private static final NetworkPolicy STRICT = new NetworkPolicy(List.of(), false);
  private static final URI TARGET = URI.create("https://hooks.example.com/in");

  private static InetAddress ip(String literal) throws UnknownHostException {
    return InetAddress.getByName(literal);
  }

  @Test
  void public_answers_come_back_in_order_after_one_lookup() throws Exception {
    List<String> asked = new ArrayList<>();
    TargetGuard guard =
        new TargetGuard(
            STRICT,
            host -> {
              asked.add(host);
              return List.of(ip("93.184.215.14"), ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
            });
    assertThat(guard.resolveChecked(TARGET))
        .containsExactly(ip("93.184.215.14"), ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
    assertThat(asked).containsExactly("hooks.example.com");
  }

  @Test
  void one_refused_answer_among_public_ones_refuses_the_target() throws Exception {
    TargetGuard guard =
        new TargetGuard(STRICT, host -> List.of(ip("93.184.215.14"), ip("192.168.0.10")));
    assertThatThrownBy(() -> guard.resolveChecked(TARGET))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("refused_address"))
        .hasMessageContaining("private")
        .message()
        .doesNotContain("192.168")
        .doesNotContain("hooks.example.com");
  }

  @Test
  void an_allowed_network_lets_its_answers_through() throws Exception {
    TargetGuard guard =
        new TargetGuard(
            new NetworkPolicy(List.of(Cidr.parse("10.8.0.0/16")), false),
            host -> List.of(ip("10.8.1.2")));
    assertThat(guard.resolveChecked(TARGET)).containsExactly(ip("10.8.1.2"));
  }

  @Test
  void a_host_without_answers_is_unresolved() {
    TargetGuard failing =
        new TargetGuard(
            STRICT,
            host -> {
              throw new UnknownHostException(host);
            });
    TargetGuard empty = new TargetGuard(STRICT, host -> List.of());
    for (TargetGuard guard : List.of(failing, empty)) {
      assertThatThrownBy(() -> guard.resolveChecked(TARGET))
          .isInstanceOfSatisfying(
              WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("unresolved"))
          .message()
          .doesNotContain("hooks.example.com");
    }
  }

  @Test
  void a_refused_form_is_refused_before_any_lookup() {
    List<String> asked = new ArrayList<>();
    TargetGuard guard =
        new TargetGuard(
            STRICT,
            host -> {
              asked.add(host);
              return List.of(ip("93.184.215.14"));
            });
    assertThatThrownBy(() -> guard.resolveChecked(URI.create("http://hooks.example.com/")))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("plain_http"));
    assertThat(asked).isEmpty();
  }

  @Test
  void a_bracketed_ipv6_host_is_looked_up_without_brackets() throws Exception {
    List<String> asked = new ArrayList<>();
    TargetGuard guard =
        new TargetGuard(
            STRICT,
            host -> {
              asked.add(host);
              return List.of(ip(host));
            });
    URI target = URI.create("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/in");
    assertThat(guard.resolveChecked(target))
        .containsExactly(ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
    assertThat(asked).containsExactly("2606:2800:21f:cb07:6820:80da:af6b:8b2c");
  }
}
