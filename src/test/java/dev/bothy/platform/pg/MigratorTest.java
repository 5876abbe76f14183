package dev.bothy.platform.pg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MigratorTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @Test
  void the_schema_version_is_the_number_of_the_newest_changeset_in_the_packaged_changelog()
      throws IOException {
    List<Long> numbers = new ArrayList<>();
    try (InputStream in = Migrator.class.getClassLoader().getResourceAsStream(Migrator.CHANGELOG)) {
      assertThat(in).as("the changelog is on the classpath").isNotNull();
      Matcher m =
          Pattern.compile("include file=\"(\\d+)-[^\"]+\\.sql\"")
              .matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      while (m.find()) {
        numbers.add(Long.parseLong(m.group(1)));
      }
    }

    assertThat(numbers).isSorted().doesNotHaveDuplicates();
    assertThat(numbers.get(numbers.size() - 1)).isEqualTo(Migrator.SCHEMA_VERSION);
  }

  @Test
  void a_migrated_database_reports_this_binarys_schema_version() {
    assertThat(Migrator.appliedSchemaVersion(PG.owner())).isEqualTo(Migrator.SCHEMA_VERSION);
  }
}
