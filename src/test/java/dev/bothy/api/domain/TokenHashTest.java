package dev.bothy.api.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class TokenHashTest {

  @Test
  void the_hash_is_the_sha256_of_the_utf8_bytes_in_lower_case_hex() {
    // The SHA-256 of "abc" from FIPS 180-2, appendix B.1.
    assertThat(TokenHash.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(TokenHash.sha256Hex("r\u00e9sum\u00e9"))
        .isNotEqualTo(TokenHash.sha256Hex("resume"))
        .matches("[0-9a-f]{64}");
  }

  @Test
  void match_finds_the_index_of_the_token_s_hash() {
    List<byte[]> hashes =
        List.of(hash("alex-token"), hash("sam-token"), hash("robin-token"), hash("sam-token"));

    assertThat(TokenHash.match("sam-token", hashes)).isEqualTo(OptionalInt.of(1));
    assertThat(TokenHash.match("robin-token", hashes)).isEqualTo(OptionalInt.of(2));
    assertThat(TokenHash.match("alex-token", hashes)).isEqualTo(OptionalInt.of(0));
  }

  @Test
  void match_finds_nothing_for_an_unknown_a_near_or_an_empty_token() {
    List<byte[]> hashes = List.of(hash("alex-token"));

    assertThat(TokenHash.match("alex-token2", hashes)).isEmpty();
    assertThat(TokenHash.match("Alex-token", hashes)).isEmpty();
    assertThat(TokenHash.match("", hashes)).isEmpty();
    assertThat(TokenHash.match("alex-token", List.of())).isEmpty();
  }

  private static byte[] hash(String token) {
    return HexFormat.of().parseHex(TokenHash.sha256Hex(token));
  }
}
