package dev.bothy.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Stores use the generated tables through jOOQ's DSL: SQL text in {@code src/main} lives only in
 * the allowlisted constants of {@link SqlText#ALLOWED}, and the fixtures prove the rule bites.
 */
class SqlTextTest {

  @Test
  void no_sql_text_in_src_main_outside_the_allowlisted_constants() {
    assertThat(SqlText.scan(Path.of("src/main/java"))).isEmpty();
  }

  @Test
  void the_rule_fails_on_sql_literals_and_plain_sql_calls_outside_a_constant() throws IOException {
    List<String> found =
        SqlText.violations("SqlOffender.java", fixture("SqlOffender.java.txt"), Set.of());

    assertThat(found)
        .anyMatch(v -> v.contains("select id from jobs where state = ?"))
        .anyMatch(v -> v.contains("update jobs set state = 'running'"))
        .anyMatch(v -> v.contains("::uuid[]"))
        .anyMatch(v -> v.contains("plain SQL passed to DSL.field("))
        .anyMatch(v -> v.contains("plain SQL passed to .resultQuery("))
        .allMatch(v -> v.startsWith("SqlOffender.java: "))
        .noneMatch(v -> v.contains("the select box"))
        .noneMatch(v -> v.contains("listen connection lost"));
  }

  @Test
  void the_rule_allows_a_commented_allowlisted_constant_and_only_that_one() throws IOException {
    String source = fixture("SqlOffender.java.txt");

    List<String> found = SqlText.violations("SqlOffender.java", source, Set.of("WHY_TEXT"));

    assertThat(found).noneMatch(v -> v.contains("pg_notify('channel', ?)"));
    assertThat(SqlText.violations("SqlOffender.java", source, Set.of("NO_REASON")))
        .contains("SqlOffender.java: the SQL constant NO_REASON has no comment saying why");
    assertThat(SqlText.violations("SqlOffender.java", source, Set.of("GONE")))
        .contains("SqlOffender.java: the allowlisted constant GONE no longer exists");
  }

  private static String fixture(String name) throws IOException {
    try (InputStream in = SqlTextTest.class.getResourceAsStream("sqltext/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
