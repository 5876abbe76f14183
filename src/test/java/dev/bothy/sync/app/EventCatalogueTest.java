package dev.bothy.sync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.SettingsUpdated;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventCatalogueTest {
  private static final Path REFERENCE =
      Path.of(System.getProperty("bothy.test.projectDir", ".")).resolve("docs/reference/events.md");

  private final JacksonPayloadCodec codec = new JacksonPayloadCodec(Jackson.newObjectMapper());

  @Test
  void every_registered_type_has_a_golden_payload_that_round_trips_byte_for_byte()
      throws IOException {
    for (EventType<?> type : EventTypes.withBuiltIns().all()) {
      String file = "/golden/events/" + type.name() + ".v" + type.version() + ".json";
      try (InputStream in = EventCatalogueTest.class.getResourceAsStream(file)) {
        assertThat(in).as("golden payload " + file).isNotNull();
        String golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);

        Object payload = codec.decode(golden, type.payloadType());

        assertThat(payload).isInstanceOf(type.payloadType());
        assertThat(codec.encode(payload)).as(type.name()).isEqualTo(golden);
      }
    }
  }

  @Test
  void a_payload_that_does_not_fit_its_record_is_invalid() {
    assertThatThrownBy(
            () -> codec.decode("{\"changedKeys\":[],\"extra\":1}", SettingsUpdated.class))
        .hasMessageContaining("does not fit the payload SettingsUpdated");
  }

  @Test
  void the_event_reference_is_up_to_date() throws IOException {
    String rendered = EventReference.render(EventTypes.withBuiltIns());
    if (Boolean.getBoolean("bothy.regenerate")) {
      Files.createDirectories(REFERENCE.getParent());
      Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
    }

    assertThat(rendered)
        .contains("| `settings.updated` | 1 | `user` |")
        .contains("| `changedKeys` | `List<String>` |");
    assertThat(Files.readString(REFERENCE, StandardCharsets.UTF_8))
        .as(
            "docs/reference/events.md is stale; regenerate it with mvn -B test"
                + " -Dtest=EventCatalogueTest -Dbothy.regenerate=true")
        .isEqualTo(rendered);
  }

  @Test
  void type_names_versions_and_duplicates_are_checked() {
    assertThatThrownBy(
            () -> new EventType<>("Settings", 1, SettingsUpdated.class, "user", "bad name"))
        .hasMessageContaining("dotted lower case");
    assertThatThrownBy(
            () -> new EventType<>("settings.updated", 0, SettingsUpdated.class, "user", "bad"))
        .hasMessageContaining("start at 1");
    EventTypes types = EventTypes.withBuiltIns();
    assertThatThrownBy(() -> types.register(EventTypes.SETTINGS_UPDATED))
        .hasMessageContaining("registered twice");
    assertThat(types.find("nothing.here")).isEmpty();
    assertThat(new SettingsUpdated(List.of("a")).changedKeys()).containsExactly("a");
  }
}
