package dev.bothy.wire.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Fails when {@code docs/operations/configuration.md} is stale. Regenerate with {@code mvn -B test
 * -Dtest=ConfigurationReferenceTest -Dbothy.regenerate=true}.
 */
class ConfigurationReferenceTest {
  private static final Path REFERENCE =
      Path.of(System.getProperty("bothy.test.projectDir", "."))
          .resolve("docs/operations/configuration.md");

  @Test
  void the_configuration_reference_is_up_to_date() throws IOException {
    String rendered = ConfigurationReference.render();
    if (Boolean.getBoolean("bothy.regenerate")) {
      Files.createDirectories(REFERENCE.getParent());
      Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
    }

    assertThat(REFERENCE).exists();
    assertThat(Files.readString(REFERENCE, StandardCharsets.UTF_8))
        .as(
            "docs/operations/configuration.md is stale; regenerate it with mvn -B test"
                + " -Dtest=ConfigurationReferenceTest -Dbothy.regenerate=true")
        .isEqualTo(rendered);
  }

  @Test
  void every_key_of_the_database_section_is_documented_with_its_default() {
    String rendered = ConfigurationReference.render();

    assertThat(rendered)
        .contains("| `database.maxPoolSize` | integer | `10` | >= 1, <= 1000 |")
        .contains("| `database.lockTimeout` | duration | `5s` | >= 1ms, <= 1d |")
        .contains("| `database.url` | string | (none) |")
        .contains("## `database.embedded`")
        .contains("| `database.embedded.port` | integer | `54329` |")
        .contains("| `shutdown.totalTimeout` | duration | `30s` |")
        .contains("| `database.listenReconnectBackoffCap` |")
        .contains("| `database.idleInTransactionTimeout` |")
        .contains("| `database.txMaxAttempts` |")
        .contains("| `database.migrationUser` |");
  }
}
