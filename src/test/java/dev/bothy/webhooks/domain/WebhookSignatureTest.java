package dev.bothy.webhooks.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Standard Webhooks 1.0.0 signature. The test vector is the one the specification's reference
 * libraries check: secret {@code whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw}, id {@code
 * msg_p5jXN8AQM9LWM0D4loKWxJek}, timestamp {@code 1614265330}, body {@code {"test": 2432232314}}.
 */
class WebhookSignatureTest {
  private static final WebhookSecret SECRET =
      WebhookSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final long TIMESTAMP = 1614265330L;
  private static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
  private static final String EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  @Test
  void the_specification_test_vector_signs_exactly() {
    assertThat(WebhookSignature.sign(ID, TIMESTAMP, BODY, List.of(SECRET))).isEqualTo(EXPECTED);
  }

  @Test
  void the_specification_test_vector_verifies() {
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, EXPECTED, SECRET)).isTrue();
  }

  @Test
  void a_changed_id_timestamp_or_body_does_not_verify() {
    byte[] otherBody = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
    assertThat(WebhookSignature.verify("msg_other", TIMESTAMP, BODY, EXPECTED, SECRET)).isFalse();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP + 1, BODY, EXPECTED, SECRET)).isFalse();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, otherBody, EXPECTED, SECRET)).isFalse();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, EXPECTED, WebhookSecret.generate()))
        .isFalse();
  }

  @Test
  void during_a_rotation_each_secret_gives_one_signature_in_order() {
    WebhookSecret newer = WebhookSecret.generate();
    String header = WebhookSignature.sign(ID, TIMESTAMP, BODY, List.of(newer, SECRET));
    String[] parts = header.split(" ");
    assertThat(parts).hasSize(2);
    assertThat(parts[0]).startsWith("v1,").isNotEqualTo(EXPECTED);
    assertThat(parts[1]).isEqualTo(EXPECTED);
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, header, newer)).isTrue();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, header, SECRET)).isTrue();
  }

  @Test
  void signatures_of_other_versions_are_skipped_by_verify() {
    String signature = EXPECTED.substring("v1,".length());
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, "v1a," + signature, SECRET)).isFalse();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, "v1a,abc " + EXPECTED, SECRET))
        .isTrue();
    assertThat(WebhookSignature.verify(ID, TIMESTAMP, BODY, null, SECRET)).isFalse();
  }

  @Test
  void signing_needs_a_secret_and_an_id_without_a_dot() {
    assertThatThrownBy(() -> WebhookSignature.sign(ID, TIMESTAMP, BODY, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookSignature.sign("msg.1", TIMESTAMP, BODY, List.of(SECRET)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookSignature.sign(" ", TIMESTAMP, BODY, List.of(SECRET)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
