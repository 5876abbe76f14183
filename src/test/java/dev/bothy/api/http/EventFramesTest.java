package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.kernel.Ids;
import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventFramesTest {
  private static final UUID ROBIN = Ids.newId();

  private static Event event(long seq, String key) {
    return new Event(
        seq,
        Ids.newId(),
        "settings.updated",
        Instant.parse("2026-12-02T10:15:30Z"),
        new ResourceRef("user", ROBIN),
        Optional.of(ROBIN),
        "{\"changedKeys\": [\"" + key + "\"]}",
        Optional.empty());
  }

  /** Counts the encodings, so a test sees which frames came from the cache. */
  private static final class CountingMapper extends ObjectMapper {
    private static final long serialVersionUID = 1L;
    final AtomicInteger writes = new AtomicInteger();

    @Override
    public byte[] writeValueAsBytes(Object value)
        throws com.fasterxml.jackson.core.JsonProcessingException {
      writes.incrementAndGet();
      return super.writeValueAsBytes(value);
    }
  }

  @Test
  void a_frame_is_the_event_s_id_and_its_json_on_one_data_line() throws Exception {
    EventFrames frames = new EventFrames(new ObjectMapper(), 8);
    Event e = event(42, "locale");

    String frame = new String(frames.frame(e), StandardCharsets.UTF_8);

    assertThat(frame).startsWith("id: 42\ndata: {").endsWith("}\n\n");
    // The id line, one data line, and the blank line that ends the event.
    assertThat(frame.lines()).hasSize(3).last().isEqualTo("");
    JsonNode data = new ObjectMapper().readTree(frame.substring(frame.indexOf("data: ") + 6));
    assertThat(data.get("seq").asLong()).isEqualTo(42);
    assertThat(data.get("id").asText()).isEqualTo(e.id().toString());
    assertThat(data.get("resource").get("id").asText()).isEqualTo(ROBIN.toString());
    assertThat(data.get("payload").get("changedKeys").get(0).asText()).isEqualTo("locale");
  }

  @Test
  void every_stream_shares_one_encoding_per_event() throws Exception {
    CountingMapper mapper = new CountingMapper();
    EventFrames frames = new EventFrames(mapper, 8);
    Event e = event(7, "theme");

    byte[] first = frames.frame(e);
    for (int stream = 0; stream < 200; stream++) {
      assertThat(frames.frame(e)).isSameAs(first);
    }
    // A backlog read gives another instance of the same event: the same frame.
    Event reread =
        new Event(
            e.seq(),
            e.id(),
            e.type(),
            e.occurredAt(),
            e.resource(),
            e.actorId(),
            e.payload(),
            e.traceparent());
    assertThat(frames.frame(reread)).isSameAs(first);
    assertThat(mapper.writes).hasValue(1);
  }

  @Test
  void a_seq_that_left_the_ring_is_encoded_again_and_never_confused_with_its_slot_mate()
      throws Exception {
    CountingMapper mapper = new CountingMapper();
    EventFrames frames = new EventFrames(mapper, 4);
    Event first = event(1, "a");
    byte[] one = frames.frame(first);
    // 5 takes the slot of 1 in a ring of 4.
    byte[] five = frames.frame(event(5, "b"));

    assertThat(new String(five, StandardCharsets.UTF_8)).startsWith("id: 5\n");
    byte[] oneAgain = frames.frame(first);
    assertThat(new String(oneAgain, StandardCharsets.UTF_8)).startsWith("id: 1\n");
    assertThat(oneAgain).isEqualTo(one).isNotSameAs(one);
    assertThat(mapper.writes).hasValue(3);
  }

  @Test
  void the_ring_holds_at_least_the_asked_number_of_frames() throws Exception {
    CountingMapper mapper = new CountingMapper();
    EventFrames frames = new EventFrames(mapper, 1000);
    for (long seq = 1; seq <= 1000; seq++) {
      frames.frame(event(seq, "k"));
    }
    for (long seq = 1; seq <= 1000; seq++) {
      frames.frame(event(seq, "k"));
    }
    assertThat(mapper.writes).hasValue(1000);
  }
}
