package dev.bothy.wire.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import jakarta.validation.Validator;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A duration outside its bounds is reported in the syntax the key takes ({@code 1s}), not as
 * Dropwizard's {@code 1 SECONDS}, which an operator cannot type back.
 */
class DurationBoundMessagesTest {
  private static final Validator VALIDATOR = Validators.newValidator();

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "below a minimum in seconds | {\"fetchWait\": \"0s\"} | fetchWait must be at least 1s",
        "above a maximum in minutes | {\"fetchWait\": \"2m\"} | fetchWait must be at most 1m",
      })
  void a_duration_bound_reads_as_the_keys_own_syntax(String name, String json, String expected)
      throws Exception {
    BusConsumersConfig config = Jackson.newObjectMapper().readValue(json, BusConsumersConfig.class);

    List<String> lines =
        SecretSafeConfigurationFactoryFactory.InvalidValuesException.lines(
            VALIDATOR.validate(config));

    assertThat(lines).as(name).containsExactly(expected);
  }
}
