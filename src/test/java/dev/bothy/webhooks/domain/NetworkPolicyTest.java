package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.webhooks.domain.WebhookTargetRefused.Reason;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NetworkPolicyTest {
  private static final NetworkPolicy STRICT = new NetworkPolicy(List.of(), false);

  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  /** An IPv6 address kept in its 16-byte form, even an IPv4-mapped one. */
  private static InetAddress ip6(String literal) throws Exception {
    return Inet6Address.getByAddress(null, Cidr.parseLiteral(literal), null);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "0.0.0.0, this_network",
    "0.1.2.3, this_network",
    "10.0.0.1, private",
    "10.255.255.255, private",
    "172.16.0.1, private",
    "172.31.255.254, private",
    "192.168.1.1, private",
    "100.64.0.1, cgnat",
    "100.127.255.254, cgnat",
    "127.0.0.1, loopback",
    "127.53.0.9, loopback",
    "169.254.169.254, link_local",
    "192.0.0.170, ietf_protocol",
    "192.0.2.10, documentation",
    "198.51.100.7, documentation",
    "203.0.113.200, documentation",
    "198.18.0.1, benchmarking",
    "198.19.255.254, benchmarking",
    "224.0.0.1, multicast",
    "239.255.255.250, multicast",
    "255.255.255.255, broadcast",
    "240.0.0.1, reserved",
    "'::', unspecified",
    "'::1', loopback",
    "'::7f00:1', ipv4_compatible",
    "'fe80::1', link_local",
    "'febf::1', link_local",
    "'fec0::1', site_local",
    "'fc00::1', unique_local",
    "'fd12:3456:789a::1', unique_local",
    "'ff02::1', multicast",
    "'2001:db8::1', documentation",
    "'3fff:0fff::1', documentation",
    "'100::1', discard",
    "'2001::1', ietf_protocol",
    "'64:ff9b:1::1', nat64_local",
  })
  void every_refused_range_is_refused(String address, String range) throws Exception {
    assertThat(STRICT.permits(ip(address))).isFalse();
    assertThat(STRICT.refusedRange(ip(address))).contains(range);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "'::ffff:127.0.0.1', loopback",
    "'::ffff:10.1.2.3', private",
    "'::ffff:169.254.169.254', link_local",
    "'::ffff:100.64.0.1', cgnat",
    "'::ffff:0.0.0.0', this_network",
    "'::ffff:192.0.2.1', documentation",
    "'::ffff:224.0.0.1', multicast",
    "'::ffff:255.255.255.255', broadcast",
    "'64:ff9b::7f00:1', loopback",
    "'64:ff9b::a9fe:a9fe', link_local",
    "'2002:7f00:1::1', loopback",
    "'2002:c0a8:101::1', private",
  })
  void addresses_carrying_a_refused_ipv4_address_are_refused(String address, String range)
      throws Exception {
    InetAddress sixteenBytes = ip6(address);
    assertThat(sixteenBytes.getAddress()).hasSize(16);
    assertThat(STRICT.permits(sixteenBytes)).isFalse();
    assertThat(STRICT.refusedRange(sixteenBytes)).contains(range);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "93.184.215.14",
        "8.8.4.4",
        "172.15.255.255",
        "172.32.0.1",
        "100.63.255.255",
        "100.128.0.1",
        "198.17.255.255",
        "223.255.255.255",
        "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
        "2a00:1450:4001::1",
        "::ffff:93.184.215.14",
        "64:ff9b::5db8:d70e",
      })
  void public_addresses_are_permitted(String address) throws Exception {
    assertThat(STRICT.permits(ip6OrIp(address))).isTrue();
    assertThat(STRICT.refusedRange(ip6OrIp(address))).isEmpty();
  }

  private static InetAddress ip6OrIp(String literal) throws Exception {
    return literal.contains(":") ? ip6(literal) : ip(literal);
  }

  @Test
  void an_allowed_network_permits_addresses_inside_a_refused_range() throws Exception {
    NetworkPolicy loopbackAllowed = new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), false);
    assertThat(loopbackAllowed.permits(ip("127.0.0.1"))).isTrue();
    assertThat(loopbackAllowed.permits(ip6("::ffff:127.0.0.1"))).isTrue();
    assertThat(loopbackAllowed.permits(ip("::1"))).isFalse();
    assertThat(loopbackAllowed.permits(ip("10.0.0.1"))).isFalse();

    NetworkPolicy oneHost = new NetworkPolicy(List.of(Cidr.parse("10.20.30.40/32")), false);
    assertThat(oneHost.permits(ip("10.20.30.40"))).isTrue();
    assertThat(oneHost.permits(ip("10.20.30.41"))).isFalse();

    NetworkPolicy ula = new NetworkPolicy(List.of(Cidr.parse("fd00:1::/64")), false);
    assertThat(ula.permits(ip("fd00:1::5"))).isTrue();
    assertThat(ula.permits(ip("fd00:2::5"))).isFalse();
  }

  @Test
  void https_targets_with_a_host_pass() {
    assertThatCode(() -> STRICT.checkTarget(URI.create("https://hooks.example.com/in?x=1")))
        .doesNotThrowAnyException();
    assertThatCode(() -> STRICT.checkTarget(URI.create("HTTPS://hooks.example.com:8443/")))
        .doesNotThrowAnyException();
  }

  @Test
  void plain_http_is_refused_unless_allowed() {
    URI plain = URI.create("http://hooks.example.com/in");
    assertThatThrownBy(() -> STRICT.checkTarget(plain))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.reason()).isEqualTo(Reason.PLAIN_HTTP))
        .hasMessageContaining("webhooks.allowPlainHttp");
    assertThatCode(() -> new NetworkPolicy(List.of(), true).checkTarget(plain))
        .doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ftp://example.com/",
        "file:///etc/passwd",
        "mailto:alex@example.com",
        "/relative"
      })
  void other_schemes_are_refused(String target) {
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create(target)))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("scheme"));
  }

  @Test
  void user_information_and_missing_hosts_are_refused() {
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https://sam:pw@example.com/")))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("userinfo"))
        .message()
        .doesNotContain("sam")
        .doesNotContain("pw");
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https:///path")))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("no_host"));
    // The scheme is right; the "//" before the host is what is missing.
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https:example.com/hook")))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("no_host"))
        .hasMessageContaining("https://");
    assertThatThrownBy(() -> STRICT.checkTarget(null)).isInstanceOf(WebhookTargetRefused.class);
  }

  @ParameterizedTest
  @CsvSource({
    "https://example.com:0/hooks",
    "https://example.com:65536/hooks",
    "https://example.com:99999/hooks",
    "https://93.184.215.14:99999/hooks",
  })
  void a_port_outside_1_to_65535_is_refused(String target) {
    // No connection can be made to these: refused at creation, not as a failed delivery later.
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create(target)))
        .as(target)
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("port"))
        .hasMessageContaining("1 to 65535");
  }

  @ParameterizedTest
  @CsvSource({
    "https://example.com/hooks",
    "https://example.com:1/hooks",
    "https://example.com:443/hooks",
    "https://example.com:65535/hooks",
  })
  void a_port_from_1_to_65535_or_none_passes(String target) {
    STRICT.checkTarget(URI.create(target));
  }

  @ParameterizedTest
  @CsvSource({
    "https://0177.0.0.1/, ambiguous_address",
    "https://2130706433/, ambiguous_address",
    "https://0x7f000001/, ambiguous_address",
    "https://93.184.215.014/, ambiguous_address",
    // java.net.URI reads no host in these (a last label that starts with a digit).
    "https://127.1/, no_host",
    "https://0x7f.0.0.1/, no_host",
    "https://127.0.0.1./, no_host",
    "https://example.123/, no_host",
  })
  void a_host_that_ends_in_a_number_but_is_no_plain_dotted_address_is_refused(
      String target, String code) {
    // Parsers disagree on these (0177 is 127 to inet_aton and curl, 177 to the JDK): refused
    // before any lookup, so no tool that re-reads the stored URL can reach another address.
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create(target)))
        .as(target)
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo(code));
  }

  @Test
  void an_address_literal_host_is_checked_at_once_and_not_echoed() {
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https://169.254.169.254/latest")))
        .isInstanceOfSatisfying(
            WebhookTargetRefused.class, e -> assertThat(e.code()).isEqualTo("refused_address"))
        .hasMessageContaining("link_local")
        .message()
        .doesNotContain("169.254");
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https://[::1]:8080/")))
        .isInstanceOf(WebhookTargetRefused.class)
        .hasMessageContaining("loopback");
    assertThatThrownBy(() -> STRICT.checkTarget(URI.create("https://[::ffff:10.0.0.1]/")))
        .isInstanceOf(WebhookTargetRefused.class)
        .hasMessageContaining("private");
    assertThatCode(() -> STRICT.checkTarget(URI.create("https://93.184.215.14/")))
        .doesNotThrowAnyException();
  }
}
