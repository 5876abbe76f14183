package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

class WebhookSecretTest {
  private static final String VECTOR = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @Test
  void a_generated_secret_has_the_prefix_and_at_least_24_random_bytes() {
    WebhookSecret a = WebhookSecret.generate();
    WebhookSecret b = WebhookSecret.generate();
    assertThat(a.encoded()).startsWith("whsec_");
    byte[] key = Base64.getDecoder().decode(a.encoded().substring("whsec_".length()));
    assertThat(key.length).isGreaterThanOrEqualTo(24).isEqualTo(WebhookSecret.GENERATED_BYTES);
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void the_text_form_reads_back_to_the_same_secret() {
    WebhookSecret generated = WebhookSecret.generate();
    assertThat(WebhookSecret.parse(generated.encoded())).isEqualTo(generated);
    assertThat(WebhookSecret.parse(VECTOR).encoded()).isEqualTo(VECTOR);
  }

  @Test
  void unpadded_base64_is_read_too() {
    String padded = WebhookSecret.generate().encoded();
    assertThat(padded).endsWith("=");
    String unpadded = padded.replace("=", "");
    assertThat(WebhookSecret.parse(unpadded)).isEqualTo(WebhookSecret.parse(padded));
  }

  @Test
  void to_string_never_shows_the_secret() {
    WebhookSecret secret = WebhookSecret.parse(VECTOR);
    assertThat(secret.toString())
        .doesNotContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        .contains("24 bytes");
  }

  @Test
  void a_text_without_the_prefix_is_refused_without_repeating_it() {
    String bare = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assertThatThrownBy(() -> WebhookSecret.parse(bare))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whsec_")
        .message()
        .doesNotContain(bare);
    assertThatThrownBy(() -> WebhookSecret.parse(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_text_that_is_not_base64_is_refused_without_repeating_it() {
    String bad = "whsec_not*base64!MfKQ9r8GKYqrTwjUPD8ILPZIo2";
    assertThatThrownBy(() -> WebhookSecret.parse(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("base64")
        .message()
        .doesNotContain("not*base64")
        .doesNotContain("*");
  }

  @Test
  void keys_shorter_than_24_or_longer_than_64_bytes_are_refused() {
    String short23 = "whsec_" + Base64.getEncoder().encodeToString(new byte[23]);
    String long65 = "whsec_" + Base64.getEncoder().encodeToString(new byte[65]);
    String ok64 = "whsec_" + Base64.getEncoder().encodeToString(new byte[64]);
    assertThatThrownBy(() -> WebhookSecret.parse(short23))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("24 to 64 bytes")
        .hasMessageContaining("23");
    assertThatThrownBy(() -> WebhookSecret.parse(long65))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65");
    assertThat(WebhookSecret.parse(ok64).encoded()).isEqualTo(ok64);
  }
}
