package dev.bothy.bus.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.Streams;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerFiltersTest {

  private static ConsumerFilters of(String version, Collection<String> types) {
    return ConsumerFilters.of(version, types, Streams.EVENT_SUBJECTS, Streams::subjectOf);
  }

  @Test
  void a_server_of_2_10_or_newer_filters_each_handled_type_once_in_order() {
    ConsumerFilters filters =
        of("2.10.0", List.of("system.pinged", "settings.updated", "system.pinged"));

    assertThat(filters.subjects())
        .containsExactly("bothy.events.settings.updated", "bothy.events.system.pinged");
    assertThat(filters.exact()).isTrue();
    assertThat(of("2.11.4", List.of("system.pinged")).subjects())
        .containsExactly("bothy.events.system.pinged");
    assertThat(of("3.0.0-beta.1", List.of("system.pinged")).exact()).isTrue();
  }

  @Test
  void a_2_9_server_filters_a_one_type_consumer_on_its_type() {
    ConsumerFilters filters = of("2.9.10", List.of("system.pinged", "system.pinged"));

    assertThat(filters.subjects()).containsExactly("bothy.events.system.pinged");
    assertThat(filters.exact()).isTrue();
    assertThat(of("1.4.0", List.of("a.b")).exact()).isTrue();
  }

  @Test
  void a_2_9_server_filters_several_types_on_their_narrowest_wildcard_and_dispatch_acks_the_rest() {
    ConsumerFilters module = of("2.9.10", List.of("system.pinged", "system.echoed"));

    assertThat(module.subjects()).containsExactly("bothy.events.system.>");
    assertThat(module.exact()).isFalse();
    ConsumerFilters modules = of("v2.9.25", List.of("a.b", "c.d"));
    assertThat(modules.subjects()).containsExactly("bothy.events.>");
    assertThat(modules.exact()).isFalse();
    assertThat(of("2.9.10", List.of("a.b.c", "a.b.d")).subjects())
        .containsExactly("bothy.events.a.b.>");
    assertThat(of("2.9.10", List.of("a.b", "a.b.c")).subjects())
        .as("a wildcard matches one token or more, so the shorter type stays under it")
        .containsExactly("bothy.events.a.>");
  }

  @Test
  void a_version_it_cannot_read_or_no_type_is_refused() {
    assertThatThrownBy(() -> of("next", List.of("a.b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("server version");
    assertThatThrownBy(() -> of("2.10.0", List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void versions_compare_by_number_not_by_text() {
    assertThat(ConsumerFilters.atLeast("2.10.0", 2, 10)).isTrue();
    assertThat(ConsumerFilters.atLeast("2.9.10", 2, 10)).isFalse();
    assertThat(ConsumerFilters.atLeast("10.0.0", 2, 10)).isTrue();
    assertThat(ConsumerFilters.atLeast("2.100.1", 2, 10)).isTrue();
  }
}
