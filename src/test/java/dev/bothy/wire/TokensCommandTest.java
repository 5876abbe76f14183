package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code tokens hash}: the hash of a token read from standard input. */
class TokensCommandTest {

  private static CommandLine.Outcome hash(String stdin) {
    InputStream in = System.in;
    System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    try {
      return CommandLine.run("tokens", "hash");
    } finally {
      System.setIn(in);
    }
  }

  @Test
  void it_prints_the_sha256_of_the_token_without_its_line_break() {
    CommandLine.Outcome outcome = hash("test\n");

    assertThat(outcome.succeeded()).isTrue();
    // The SHA-256 of "test", as sha256sum prints it.
    assertThat(outcome.out().strip())
        .isEqualTo("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  }

  @Test
  void an_empty_input_or_one_with_white_space_around_is_refused_with_a_message() {
    CommandLine.Outcome empty = hash("\n");
    assertThat(empty.succeeded()).isFalse();
    assertThat(empty.err()).contains("tokens hash: no token on standard input");

    CommandLine.Outcome spaced = hash(" alex \n");
    assertThat(spaced.succeeded()).isFalse();
    assertThat(spaced.err()).contains("white space");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"alex token\n", "alex\ttoken\n", "sam\u0007\n", "robin\u00e9\n"})
  void a_token_a_client_cannot_send_as_a_bearer_token_is_refused(String input) {
    CommandLine.Outcome outcome = hash(input);

    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.err()).contains("printable ASCII characters without spaces");
  }
}
