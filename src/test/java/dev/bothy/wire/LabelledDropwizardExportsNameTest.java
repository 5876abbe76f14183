package dev.bothy.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Dropwizard name of a labelled series, built on every counted job, dispatch and attempt: the
 * shape the exporter parses back, and the refusal of a value that would break that parse.
 */
class LabelledDropwizardExportsNameTest {

  @Test
  void joins_the_base_and_the_labels_in_their_order() {
    assertThat(
            LabelledDropwizardExports.name(
                "bothy.bus.dispatch", "bothy_handler", "system.echo", "bothy_outcome", "ack"))
        .isEqualTo("bothy.bus.dispatch{bothy_handler=system.echo,bothy_outcome=ack}");
    assertThat(LabelledDropwizardExports.name("bothy.jobs.work", "bothy_job_kind", ""))
        .isEqualTo("bothy.jobs.work{bothy_job_kind=}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a,b", "a=b", "{a", "a}", ",", "=", "{", "}", "alex\n,sam"})
  void refuses_a_value_holding_a_separator(String value) {
    assertThatThrownBy(() -> LabelledDropwizardExports.name("bothy.x", "bothy_l", value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not hold , = { or }");
    assertThatThrownBy(
            () -> LabelledDropwizardExports.name("bothy.x", "bothy_a", "ok", "bothy_b", value))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"robin", "sam.example.com", "a-b_c:d/e", "alex\nrobin", "(x)[y]"})
  void takes_a_value_without_separators(String value) {
    assertThat(LabelledDropwizardExports.name("bothy.x", "bothy_l", value))
        .isEqualTo("bothy.x{bothy_l=" + value + "}");
  }

  @Test
  void refuses_labels_that_are_not_pairs() {
    assertThatThrownBy(() -> LabelledDropwizardExports.name("bothy.x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LabelledDropwizardExports.name("bothy.x", "bothy_l"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
