package dev.bothy.instance.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.BuildInfo;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.platform.pg.Migrator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SemVerTest {

  @Test
  void the_precedence_examples_of_semver_section_11_are_in_ascending_order() {
    List<String> ascending =
        List.of(
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "2.0.0",
            "2.1.0",
            "2.1.1");
    for (int i = 0; i < ascending.size(); i++) {
      for (int j = 0; j < ascending.size(); j++) {
        int expected = Integer.signum(Integer.compare(i, j));
        assertThat(Integer.signum(SemVer.compare(ascending.get(i), ascending.get(j))))
            .as(ascending.get(i) + " vs " + ascending.get(j))
            .isEqualTo(expected);
      }
    }
  }

  @ParameterizedTest(name = "{0} vs {1}")
  @CsvSource({
    "1.0.0, 1.0.0, 0",
    "1.0.0+build.1, 1.0.0+build.2, 0",
    "1.0.0-rc.1+build.1, 1.0.0-rc.1, 0",
    "1.10.0, 1.9.0, 1",
    "0.9.9, 1.0.0, -1",
    "1.0.0-2, 1.0.0-10, -1",
    "1.0.0-a, 1.0.0-10, 1",
    "1.0.0-alpha.1, 1.0.0-alpha, 1",
    "0.1.0-SNAPSHOT, 0.1.0, -1",
    "18446744.0.0, 2.0.0, 1"
  })
  void compare_orders_by_precedence(String a, String b, int expected) {
    assertThat(Integer.signum(SemVer.compare(a, b))).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1",
        "1.0",
        "v1.0.0",
        "01.0.0",
        "1.0.0-",
        "1.0.0-01",
        "1.0.0+",
        "1.0.0-alpha..1",
        "1.0.0 ",
        "99999999999999999999.0.0"
      })
  void invalid_versions_are_rejected_as_invalid(String text) {
    assertThatThrownBy(() -> SemVer.parse(text))
        .isInstanceOfSatisfying(
            BothyException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID));
  }

  @Test
  void a_null_version_is_rejected() {
    assertThatThrownBy(() -> SemVer.parse(null)).isInstanceOf(BothyException.class);
  }

  @Test
  void versions_print_without_build_metadata() {
    assertThat(SemVer.parse("1.2.3-rc.1+build.5")).hasToString("1.2.3-rc.1");
    assertThat(SemVer.parse("1.2.3")).hasToString("1.2.3");
  }

  @Test
  void the_server_version_check_passes_at_or_above_the_minimum_and_names_both_below() {
    assertThat(ServerVersionCheck.check("1.2.0", "1.2.0")).isEmpty();
    assertThat(ServerVersionCheck.check("1.3.0", "1.2.0")).isEmpty();
    assertThat(ServerVersionCheck.check("1.2.0-rc.1", "1.2.0"))
        .hasValueSatisfying(m -> assertThat(m).contains("1.2.0-rc.1").contains("1.2.0 or newer"));
  }

  @Test
  void the_minimum_server_version_is_valid_and_not_above_the_build_version() {
    assertThat(SemVer.compare(Migrator.MIN_SERVER_VERSION, BuildInfo.version()))
        .isLessThanOrEqualTo(0);
  }
}
