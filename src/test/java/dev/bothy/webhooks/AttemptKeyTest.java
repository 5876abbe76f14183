package dev.bothy.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The attempts list's cursor: what {@code encode} writes reads back, nothing else does. */
class AttemptKeyTest {
  private static final UUID ID = UUID.fromString("01a24daa-956e-77c0-8e30-3a94f03f8a0e");

  @Test
  void a_cursor_reads_back_as_its_key() {
    AttemptKey key = new AttemptKey(Instant.parse("2026-12-06T10:15:30.123456Z"), Ids.newId());

    assertThat(AttemptKey.parse(key.encode())).contains(key);
    assertThat(key.encode()).isEqualTo("2026-12-06T10:15:30.123456Z_" + key.id());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "_",
        "robin",
        "2026-12-06T10:15:30Z_",
        "_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        "2026-12-06T10:15:30Z_1-2-3-4-5",
        "2026-12-06_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        // Another spelling of a time, or one no attempt stores.
        "2026-12-06T11:15:30+01:00_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        "2026-12-06T10:15:30z_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        "2026-12-06T10:15:30.123456789Z_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        "+10000-01-01T00:00:00Z_01a24daa-956e-77c0-8e30-3a94f03f8a0e",
        "-0001-01-01T00:00:00Z_01a24daa-956e-77c0-8e30-3a94f03f8a0e"
      })
  void anything_but_an_encoded_key_is_no_cursor(String text) {
    assertThat(AttemptKey.parse(text)).as(text).isEmpty();
  }

  @Test
  void the_years_1_and_9999_are_cursors() {
    assertThat(AttemptKey.parse("0001-01-01T00:00:00Z_" + ID)).isPresent();
    assertThat(AttemptKey.parse("9999-12-31T23:59:59.999999Z_" + ID)).isPresent();
  }
}
