package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.kernel.BothyException;
import dev.bothy.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The EVENTS stream on a real nats-server: created as declared, updated, verified. */
class StreamsTest {
  @RegisterExtension static final NatsServer NATS = NatsServer.jetStream();

  private static Connection admin;
  private static JetStreamManagement jsm;

  @BeforeAll
  static void connect() throws Exception {
    admin = Nats.connect(new Options.Builder().server(NATS.url()).build());
    jsm = admin.jetStreamManagement();
  }

  @AfterAll
  static void disconnect() throws Exception {
    admin.close();
  }

  @BeforeEach
  void noStream() throws Exception {
    if (jsm.getStreamNames().contains(Streams.EVENTS)) {
      jsm.deleteStream(Streams.EVENTS);
    }
  }

  @Test
  void subject_of_an_event_type_is_under_bothy_events() {
    assertThat(Streams.subjectOf("settings.updated")).isEqualTo("bothy.events.settings.updated");
    assertThatThrownBy(() -> Streams.subjectOf("settings.>"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Streams.subjectOf("Settings Updated"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void the_start_creates_the_stream_with_the_declared_configuration() throws Exception {
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    bus.connect();
    try {
      StreamConfiguration config = jsm.getStreamInfo(Streams.EVENTS).getConfiguration();
      assertThat(config.getSubjects()).containsExactly("bothy.events.>");
      assertThat(config.getStorageType()).isEqualTo(StorageType.File);
      assertThat(config.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
      assertThat(config.getReplicas()).isEqualTo(1);
      assertThat(config.getMaxAge()).isEqualTo(Duration.ofDays(30));
      assertThat(config.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(5));
      assertThat(config.getMaximumMessageSize()).isEqualTo(64 * 1024 + Streams.HEADER_ROOM_BYTES);
    } finally {
      bus.close();
    }
  }

  @Test
  void the_start_updates_a_stream_that_differs_and_keeps_what_bothy_does_not_declare()
      throws Exception {
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects("bothy.events.settings.>")
            .storageType(StorageType.File)
            .maxAge(Duration.ofDays(40))
            .duplicateWindow(Duration.ofMinutes(2))
            .description("kept by the update")
            .build());
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    bus.connect();
    try {
      StreamConfiguration config = jsm.getStreamInfo(Streams.EVENTS).getConfiguration();
      assertThat(config.getSubjects()).containsExactly("bothy.events.>");
      assertThat(config.getMaxAge()).isEqualTo(Duration.ofDays(30));
      assertThat(config.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(5));
      assertThat(config.getMaximumMessageSize()).isEqualTo(64 * 1024 + Streams.HEADER_ROOM_BYTES);
      assertThat(config.getDescription()).isEqualTo("kept by the update");
    } finally {
      bus.close();
    }
  }

  @Test
  void a_stream_that_differs_fails_the_start_naming_each_field_when_bothy_may_not_manage_it()
      throws Exception {
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects("bothy.events.>")
            .storageType(StorageType.File)
            .maxAge(Duration.ofDays(40))
            .duplicateWindow(Duration.ofMinutes(2))
            .maximumMessageSize(64 * 1024 + Streams.HEADER_ROOM_BYTES)
            .build());
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), false));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("stream EVENTS differs from its declaration")
        .hasMessageContaining("bus.nats.manageStreams is false")
        .hasMessageContaining("max_age is PT960H, declared PT720H (bus.nats.stream.maxAge)")
        .hasMessageContaining(
            "duplicate_window is PT2M, declared PT5M (bus.nats.stream.duplicateWindow)")
        .hasMessageNotContaining("replicas")
        .hasMessageNotContaining("subjects");
    assertThat(jsm.getStreamInfo(Streams.EVENTS).getConfiguration().getMaxAge())
        .as("verified only, never changed")
        .isEqualTo(Duration.ofDays(40));
  }

  @Test
  void a_stream_as_declared_passes_the_verification() throws Exception {
    BusModule managing = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));
    managing.connect();
    managing.close();
    BusModule verifying = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), false));

    verifying.connect();
    try {
      assertThat(verifying.management().getStreamNames()).isEqualTo(List.of(Streams.EVENTS));
    } finally {
      verifying.close();
    }
  }

  @Test
  void a_memory_stream_is_not_updated_but_fails_the_start_naming_the_storage() throws Exception {
    jsm.addStream(
        StreamConfiguration.builder()
            .name(Streams.EVENTS)
            .subjects("bothy.events.>")
            .storageType(StorageType.Memory)
            .build());
    BusModule bus = new BusModule(BusSettings.of(NATS.url(), new Credential.None(), true));

    assertThatThrownBy(bus::connect)
        .isInstanceOf(BothyException.class)
        .hasMessageContaining("what a stream cannot change")
        .hasMessageContaining("storage is memory, declared file");
  }
}
