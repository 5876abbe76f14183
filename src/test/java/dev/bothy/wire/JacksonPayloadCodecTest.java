package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.sync.SettingsUpdated;
import io.dropwizard.jackson.Jackson;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The payload codec refuses what PostgreSQL's {@code jsonb} cannot hold as sent, for every producer
 * and not only the HTTP API: U+0000 (refused by {@code jsonb}, with the payload in the error) and a
 * lone surrogate (stored as {@code ?} by the driver's UTF-8 encoder).
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
}
