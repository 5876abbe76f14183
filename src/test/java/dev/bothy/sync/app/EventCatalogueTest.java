package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.sync.SyncEvents;
import dev.bothy.testing.GoldenPayloads;
import dev.bothy.wire.EventRegistrations;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventCatalogueTest {
  private final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());

  @Test
  void every_registered_type_has_a_golden_payload_that_round_trips_byte_for_byte()
      throws IOException {
    List<EventType<?>> types = EventRegistrations.catalogue().all();
    if (Boolean.getBoolean(GoldenPayloads.UPDATE_PROPERTY)) {
      GoldenPayloads.writeMissing(GoldenPayloads.DIRECTORY, types, codec);
    }
    for (EventType<?> type : types) {
      Path file = GoldenPayloads.DIRECTORY.resolve(GoldenPayloads.fileName(type));
      assertThat(file)
          .as(
              "golden payload of "
                  + type.name()
                  + "; write one with mvn -B test -Dtest=EventCatalogueTest"
                  + " -Dbothy.updateGoldens=true, then fill in real values")
          .exists();
      String golden = Files.readString(file, StandardCharsets.UTF_8);

      Object payload = codec.decode(golden, type.payloadType());

      assertThat(payload).isInstanceOf(type.payloadType());
      assertThat(codec.encode(payload)).as(type.name()).isEqualTo(golden);
    }
  }

  /** A payload with a field of every kind the update mode knows. */
  record Sample(
      UUID id,
      String name,
      int count,
      long total,
      boolean done,
      Instant at,
      Optional<String> note,
      List<String> tags,
      Inner inner) {}

  /** A nested record. */
  record Inner(String label) {}

  @Test
  void the_update_mode_writes_a_zero_golden_for_a_type_without_one_and_never_rewrites_one(
      @TempDir Path dir) throws IOException {
    EventType<Sample> sample =
        new EventType<>("sample.made", 2, Sample.class, "sample", "Made.", EventType.Origin.API);
    Path existing = dir.resolve("settings.updated.v1.json");
    Files.writeString(existing, "{\"changedKeys\":[\"kept\"]}", StandardCharsets.UTF_8);

    List<Path> written =
        GoldenPayloads.writeMissing(dir, List.of(EventTypes.SETTINGS_UPDATED, sample), codec);

    assertThat(written).containsExactly(dir.resolve("sample.made.v2.json"));
    assertThat(Files.readString(existing)).isEqualTo("{\"changedKeys\":[\"kept\"]}");
    String zero = Files.readString(dir.resolve("sample.made.v2.json"));
    assertThat(zero)
        .isEqualTo(
            "{\"id\":\"00000000-0000-0000-0000-000000000000\",\"name\":\"\",\"count\":0,"
                + "\"total\":0,\"done\":false,\"at\":0.0,\"note\":null,\"tags\":[],"
                + "\"inner\":{\"label\":\"\"}}");
    assertThat(codec.encode(codec.decode(zero, Sample.class))).isEqualTo(zero);

    assertThat(GoldenPayloads.writeMissing(dir, List.of(sample), codec)).isEmpty();
  }

  @Test
  void a_payload_that_does_not_fit_its_record_is_invalid() {
    assertThatThrownBy(
            () -> codec.decode("{\"changedKeys\":[],\"extra\":1}", SettingsUpdated.class))
        .hasMessageContaining("does not fit the payload SettingsUpdated");
  }

  @Test
  void the_reference_lists_each_type_with_its_aggregate_fields_and_handlers() {
    String none = EventReference.render(EventTypes.withBuiltIns(), Map.of());
    String some =
        EventReference.render(
            EventTypes.withBuiltIns(), Map.of("settings.updated", List.of("system.b", "search.a")));

    assertThat(none)
        .contains("| `settings.updated` | 1 | `user` | clients | none |")
        .contains("| `changedKeys` | `List<String>` |");
    assertThat(some)
        .contains("| `settings.updated` | 1 | `user` | clients | `search.a`, `system.b` |");
    assertThat(EventReference.render(EventRegistrations.catalogue(), Map.of()))
        .as("a type only its module appends")
        .contains("| `system.pinged` | 1 | `ping` | its module | none |");
  }

  @Test
  void each_module_registers_its_types_from_its_own_file_once() {
    assertThat(EventTypes.withBuiltIns().all()).isEqualTo(SyncEvents.registrations());
    EventTypes catalogue = EventRegistrations.catalogue();
    assertThat(catalogue.all()).containsAll(SyncEvents.registrations());
    assertThat(catalogue.all().stream().map(EventType::name).distinct())
        .hasSize(catalogue.all().size());
  }

  @Test
  void type_names_versions_and_duplicates_are_checked() {
    assertThatThrownBy(
            () ->
                new EventType<>(
                    "Settings", 1, SettingsUpdated.class, "user", "bad name", EventType.Origin.API))
        .hasMessageContaining("dotted lower case");
    assertThatThrownBy(
            () ->
                new EventType<>(
                    "settings.updated",
                    0,
                    SettingsUpdated.class,
                    "user",
                    "bad",
                    EventType.Origin.API))
        .hasMessageContaining("start at 1");
    EventTypes types = EventTypes.withBuiltIns();
    assertThatThrownBy(() -> types.register(EventTypes.SETTINGS_UPDATED))
        .hasMessageContaining("registered twice");
    assertThat(types.find("nothing.here")).isEmpty();
    assertThat(new SettingsUpdated(List.of("a")).changedKeys()).containsExactly("a");
  }
}
