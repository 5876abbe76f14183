package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class CidrTest {

  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  @Test
  void an_ipv4_block_holds_its_addresses_only() throws Exception {
    Cidr loopback = Cidr.parse("127.0.0.0/8");
    assertThat(loopback.contains(ip("127.0.0.1"))).isTrue();
    assertThat(loopback.contains(ip("127.255.255.255"))).isTrue();
    assertThat(loopback.contains(ip("128.0.0.1"))).isFalse();
    assertThat(loopback.contains(ip("::1"))).isFalse();
    assertThat(loopback.isIpv4()).isTrue();
    assertThat(loopback).hasToString("127.0.0.0/8").isEqualTo(Cidr.parse(" 127.0.0.0/8 "));
  }

  @Test
  void an_ipv6_block_holds_its_addresses_only() throws Exception {
    Cidr ula = Cidr.parse("fc00::/7");
    assertThat(ula.contains(ip("fd12:3456::1"))).isTrue();
    assertThat(ula.contains(ip("fe80::1"))).isFalse();
    assertThat(ula.isIpv4()).isFalse();
  }

  @Test
  void a_bare_address_is_a_block_of_one() throws Exception {
    Cidr one = Cidr.parse("10.1.2.3");
    assertThat(one.contains(ip("10.1.2.3"))).isTrue();
    assertThat(one.contains(ip("10.1.2.4"))).isFalse();
    assertThat(Cidr.parse("::1").contains(ip("::1"))).isTrue();
  }

  @Test
  void prefix_zero_holds_every_address_of_its_family() throws Exception {
    assertThat(Cidr.parse("0.0.0.0/0").contains(ip("203.0.113.9"))).isTrue();
    assertThat(Cidr.parse("::/0").contains(ip("2001:db8::1"))).isTrue();
  }

  @Test
  void an_ipv4_mapped_block_keeps_its_ipv6_form() {
    Cidr mapped = Cidr.parse("::ffff:0:0/96");
    byte[] address = new byte[16];
    address[10] = (byte) 0xff;
    address[11] = (byte) 0xff;
    address[12] = 127;
    address[15] = 1;
    assertThat(mapped.contains(address)).isTrue();
    assertThat(mapped.isIpv4()).isFalse();
  }

  @Test
  void malformed_blocks_are_refused() {
    for (String bad :
        new String[] {
          "localhost",
          "example.com/24",
          "10.0.0.0/33",
          "10.0.0.0/-1",
          "10.0.0.0/",
          "10.0.0/8",
          "10.0.0.256/32",
          "010.0.0.0/8",
          "127.1",
          "::/129",
          "fe80::1%eth0/64",
          "1:2:3:4:5:6:7:8:9/64",
          "",
        }) {
      assertThatThrownBy(() -> Cidr.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> Cidr.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void bits_set_after_the_prefix_are_refused_as_a_likely_typing_error() {
    assertThatThrownBy(() -> Cidr.parse("10.0.0.1/8"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("after its prefix");
    assertThatThrownBy(() -> Cidr.parse("fd00::1/8")).isInstanceOf(IllegalArgumentException.class);
  }
}
