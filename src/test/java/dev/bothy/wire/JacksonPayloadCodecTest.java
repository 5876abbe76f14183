package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.system.Echoed;
import dev.bothy.system.Pinged;
import io.dropwizard.jackson.Jackson;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The payload codec refuses what PostgreSQL's {@code jsonb} cannot hold as sent, for every producer
 * and not only the HTTP API: U+0000 (refused by {@code jsonb}, with the payload in the error) and a
 * lone surrogate (stored as {@code ?} by the driver's UTF-8 encoder). Decoding goes through one
 * reader per record type (D-BD-16) and refuses what does not fit the record, naming the record and
 * never a value.
 */
class JacksonPayloadCodecTest {
  private final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());

  @Test
  void a_payload_with_u0000_is_invalid_and_the_error_does_not_repeat_it() {
    assertThatThrownBy(() -> codec.encode(new SettingsUpdated(List.of("secret-part\u0000"))))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID))
        .hasMessageContaining("SettingsUpdated")
        .hasMessageNotContaining("secret-part");
  }

  @Test
  void a_payload_with_a_lone_surrogate_is_invalid() {
    for (String bad : List.of("a\ud800", "\udc00a", "\udc00\ud800", "\ud800")) {
      assertThatThrownBy(() -> codec.encode(new SettingsUpdated(List.of(bad))))
          .isInstanceOf(BothyException.class);
    }
  }

  @Test
  void valid_unicode_and_an_escaped_backslash_before_u0000_text_are_kept() {
    String pair = "clef \ud834\udd1e";
    String backslash = "path\\u0000 as text";
    String json = codec.encode(new SettingsUpdated(List.of(pair, backslash)));
    assertThat(codec.decode(json, SettingsUpdated.class).changedKeys())
        .containsExactly(pair, backslash);
  }

  @Test
  void decoding_reads_each_record_type_with_its_own_reader_over_the_same_codec() {
    UUID ping = UUID.fromString("6b1f6f4e-3c1a-4d8e-9a57-2f0c1e7d9b10");
    UUID event = UUID.fromString("0e5a3c2b-7d41-4f9a-8b6e-1c2d3e4f5a6b");
    for (int round = 0; round < 2; round++) {
      assertThat(codec.decode(codec.encode(new Pinged(ping)), Pinged.class))
          .isEqualTo(new Pinged(ping));
      assertThat(codec.decode(codec.encode(new Echoed(ping, event)), Echoed.class))
          .isEqualTo(new Echoed(ping, event));
      assertThat(codec.decode("{\"changedKeys\":[\"a\"]}", SettingsUpdated.class))
          .isEqualTo(new SettingsUpdated(List.of("a")));
    }
  }

  @Test
  void an_unknown_property_is_invalid_naming_the_record_and_not_the_value() {
    for (int round = 0; round < 2; round++) {
      assertThatThrownBy(
              () ->
                  codec.decode(
                      "{\"pingId\":\"6b1f6f4e-3c1a-4d8e-9a57-2f0c1e7d9b10\",\"note\":\"sam-secret\"}",
                      Pinged.class))
          .isInstanceOfSatisfying(
              BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID))
          .hasMessageContaining("Pinged")
          .hasMessageContaining("note")
          .hasMessageNotContaining("sam-secret");
    }
  }

  @Test
  void text_that_is_not_json_is_invalid_with_its_line() {
    assertThatThrownBy(() -> codec.decode("{\n\"pingId\": nope}", Pinged.class))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID))
        .hasMessageContaining("Pinged at line 2");
  }
}
