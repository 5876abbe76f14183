package dev.bothy.bus.adapters.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.sync.Event;
import dev.bothy.sync.ResourceRef;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The body of an event message read back: the NATS transport's input is the relay's output. */
class EventMessageTest {

  private static Event event(Optional<UUID> actor, String resourceType, String payload) {
    return new Event(
        42,
        UUID.fromString("01a237aa-0381-749b-a22c-6547864c6c7b"),
        "system.pinged",
        Instant.parse("2026-12-02T16:50:18.625251Z"),
        new ResourceRef(resourceType, UUID.fromString("01a237aa-0381-749b-a22c-000000000001")),
        actor,
        payload,
        Optional.of("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
  }

  @Test
  void a_body_reads_back_as_the_event_with_its_payload_byte_for_byte() {
    Event withActor =
        event(
            Optional.of(UUID.fromString("01a237aa-0381-749b-a22c-0000000000aa")),
            "ping",
            "{\"pingId\": \"x\", \"nested\": {\"a\": [1, 2, {\"b\": \"},\\\"payload\\\":\"}]}}");
    Event odd = event(Optional.empty(), "we\"ird\\type\u0001", "{}");

    for (Event e : new Event[] {withActor, odd}) {
      assertThat(EventMessage.parse(EventMessage.body(e), e.traceparent().orElseThrow()))
          .contains(e);
    }
    assertThat(EventMessage.parse(EventMessage.body(odd), null).orElseThrow().traceparent())
        .isEmpty();
  }

  @Test
  void a_body_that_is_not_an_event_message_reads_as_nothing() {
    Event e = event(Optional.empty(), "ping", "{\"pingId\":1}");
    String body = new String(EventMessage.body(e), StandardCharsets.UTF_8);

    for (String foreign :
        new String[] {
          "",
          "hello",
          "{\"seq\":1}",
          body.substring(0, body.indexOf("\"payload\"")),
          body.replace("\"seq\":42", "\"seq\":\"42\""),
          body.replace("01a237aa-0381-749b-a22c-6547864c6c7b", "not-a-uuid"),
          body.replace("\"actor\":null", "\"actor\":7"),
          body.replace("\"payload\":{\"pingId\":1}}", "\"payload\":}")
        }) {
      assertThat(EventMessage.parse(foreign.getBytes(StandardCharsets.UTF_8), null))
          .as(foreign)
          .isEmpty();
    }
  }
}
