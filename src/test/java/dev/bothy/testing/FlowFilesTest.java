package dev.bothy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FlowFilesTest {
  private static final String FLOW =
      "# Flow\n\n## Steps\n\n| `not.this` | x | `no.handler` |\n\n"
          + "## Events and their consumers\n\n| event | emitted by | consumers |\n|---|---|---|\n"
          + "| `a.made` | `POST /v1/a` | `b.react`, `c.react` |\n"
          + "| `a.done` | the handler `b.react` | none |\n";

  private static final Set<String> TYPES = Set.of("a.made", "a.done");

  @Test
  void a_flow_file_names_the_consumers_of_each_event_in_its_section_only() {
    assertThat(FlowFiles.parse(FLOW))
        .containsExactly(
            Map.entry("a.made", List.of("b.react", "c.react")), Map.entry("a.done", List.of()));
  }

  @Test
  void a_file_that_names_exactly_the_registered_handlers_passes() {
    assertThat(
            FlowFiles.problems(
                Map.of("00-a.md", FlowFiles.parse(FLOW)),
                Map.of("a.made", List.of("b.react", "c.react")),
                TYPES))
        .isEmpty();
  }

  @Test
  void a_registered_handler_missing_from_a_flow_that_emits_its_event_fails() {
    assertThat(
            FlowFiles.problems(
                Map.of("00-a.md", FlowFiles.parse(FLOW)),
                Map.of("a.made", List.of("b.react", "c.react"), "a.done", List.of("d.audit")),
                TYPES))
        .containsExactly("00-a.md emits a.done but does not name its handler d.audit");
  }

  @Test
  void a_named_handler_that_does_not_exist_or_takes_another_event_fails() {
    assertThat(
            FlowFiles.problems(
                Map.of("00-a.md", FlowFiles.parse(FLOW)),
                Map.of("a.made", List.of("b.react"), "a.done", List.of("c.react")),
                TYPES))
        .containsExactlyInAnyOrder(
            "00-a.md emits a.done but does not name its handler c.react",
            "00-a.md names c.react for a.made, but no registered handler of that name takes it");
  }

  @Test
  void an_unknown_event_and_a_file_without_its_table_fail() {
    assertThat(
            FlowFiles.problems(
                Map.of("00-a.md", FlowFiles.parse(FLOW), "01-b.md", FlowFiles.parse("# B\n")),
                Map.of("a.made", List.of("b.react", "c.react")),
                Set.of("a.made")))
        .containsExactlyInAnyOrder(
            "00-a.md emits a.done, which is no registered event type",
            "01-b.md has no table under \"## Events and their consumers\"");
  }
}
