package dev.bothy.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdsTest {

  @Test
  void ids_carry_version_7_and_the_rfc_variant() {
    UUID id = Ids.newId();

    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
  }

  @Test
  void the_lowest_id_of_a_millisecond_bounds_every_id_made_in_it() {
    long millis = 1_764_670_000_123L;
    java.time.Instant at = java.time.Instant.ofEpochMilli(millis);
    UUID floor = Ids.lowestAt(at);
    UUID next = Ids.lowestAt(at.plusMillis(1));
    assertThat(floor.version()).isEqualTo(7);
    assertThat(floor.variant()).isEqualTo(2);
    for (int seed = 0; seed < 100; seed++) {
      UUID id = new Ids(() -> millis, new Random(seed)).next();
      // Text order of lower-case UUIDs is PostgreSQL's bytewise uuid order.
      assertThat(id.toString()).isGreaterThanOrEqualTo(floor.toString());
      assertThat(id.toString()).isLessThan(next.toString());
    }
    assertThat(Ids.lowestAt(at.minusMillis(1)).toString()).isLessThan(floor.toString());
    assertThat(floor.toString())
        .isEqualTo(
            String.format("%08x-%04x-7000-8000-000000000000", millis >>> 16, millis & 0xFFFF));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Ids.lowestAt(java.time.Instant.ofEpochMilli(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ids_carry_the_unix_milliseconds_in_their_first_48_bits() {
    long before = System.currentTimeMillis();
    UUID id = Ids.newId();
    long after = System.currentTimeMillis();

    long millis = id.getMostSignificantBits() >>> 16;
    assertThat(millis).isBetween(before, after + 1);
  }

  @Test
  void ten_thousand_ids_from_one_thread_are_strictly_increasing() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      ids.add(Ids.newId());
    }

    for (int i = 1; i < ids.size(); i++) {
      assertThat(ids.get(i)).isGreaterThan(ids.get(i - 1));
      assertThat(ids.get(i).toString()).isGreaterThan(ids.get(i - 1).toString());
    }
  }

  @Test
  void ids_stay_increasing_when_the_counter_overflows_within_one_millisecond() {
    Ids ids = new Ids(() -> 1_000L, new Random(1));
    UUID previous = ids.next();
    for (int i = 0; i < 10_000; i++) {
      UUID next = ids.next();
      assertThat(next).isGreaterThan(previous);
      previous = next;
    }
    assertThat(previous.getMostSignificantBits() >>> 16)
        .as("the timestamp was borrowed ahead of the stuck clock")
        .isGreaterThan(1_000L);
  }

  @Test
  void ids_stay_increasing_when_the_wall_clock_steps_back() {
    AtomicLong now = new AtomicLong(5_000);
    Ids ids = new Ids(now::get, new Random(2));
    UUID before = ids.next();

    now.set(4_000);
    UUID after = ids.next();

    assertThat(after).isGreaterThan(before);
  }

  @Test
  void parse_takes_the_canonical_form_only() {
    UUID id = Ids.newId();
    assertThat(Ids.parse(id.toString())).hasValue(id);
    assertThat(Ids.parse(id.toString().toUpperCase(java.util.Locale.ROOT))).hasValue(id);
    // UUID.fromString takes the first two, as other ids.
    assertThat(Ids.parse("1-2-3-4-5")).isEmpty();
    assertThat(Ids.parse("+f1c2b1e-0000-7000-8000-000000000000")).isEmpty();
    assertThat(Ids.parse("0f1c2b1e-0000-7000-8000-0000000000000")).isEmpty();
    assertThat(Ids.parse(" " + id)).isEmpty();
    assertThat(Ids.parse("")).isEmpty();
    assertThat(Ids.parse(null)).isEmpty();
  }
}
