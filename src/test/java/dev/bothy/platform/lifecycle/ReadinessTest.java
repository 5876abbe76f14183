package dev.bothy.platform.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ReadinessTest {

  @Test
  void failing_names_the_checks_that_do_not_pass_in_name_order() {
    Readiness readiness = new Readiness();
    AtomicBoolean databaseUp = new AtomicBoolean(false);
    readiness.register("tail", () -> false);
    readiness.register("database", databaseUp::get);
    readiness.register(
        "schema",
        () -> {
          throw new IllegalStateException("check blew up");
        });

    assertThat(readiness.failing()).containsExactly("database", "schema", "tail");
    databaseUp.set(true);
    assertThat(readiness.failing()).containsExactly("schema", "tail");
    assertThat(readiness.names()).containsExactly("database", "schema", "tail");
  }

  @Test
  void an_empty_registry_is_ready_and_names_are_unique() {
    Readiness readiness = new Readiness();

    assertThat(readiness.failing()).isEmpty();
    readiness.register("database", () -> true);
    assertThatThrownBy(() -> readiness.register("database", () -> true))
        .hasMessageContaining("registered twice");
  }
}
