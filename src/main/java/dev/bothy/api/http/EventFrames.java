package dev.bothy.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.sync.Event;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Server-Sent Event frames of events ({@code id: <seq>}, then {@code data: <event JSON>}),
 * encoded once and shared by every stream: with many streams on one tail, each event would
 * otherwise be turned into JSON once per stream.
 *
 * <p>A ring of at least {@code sync.tailSubscriberBuffer} slots, indexed by seq: live streams are
 * at most that many events apart (the tail drops a subscriber that lags more), so they find each
 * other's frames. A stream reading its backlog further behind encodes its own frames and overwrites
 * slots, which costs only encodings: a slot is used only when it holds the same seq, and an event's
 * frame never changes.
 */
final class EventFrames {
  private static final byte[] DATA = "\ndata: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);

  private final ObjectMapper mapper;
  private final AtomicReferenceArray<Frame> ring;
  private final int mask;

  private record Frame(long seq, byte[] bytes) {}

  /**
   * Creates the ring.
   *
   * @param mapper writes the event JSON
   * @param capacity the least number of frames kept ({@code sync.tailSubscriberBuffer})
   */
  EventFrames(ObjectMapper mapper, int capacity) {
    if (capacity < 1 || capacity > 1 << 30) {
      throw new IllegalArgumentException("the frame ring holds 1 to 2^30 frames: " + capacity);
    }
    int size = Integer.highestOneBit(capacity);
    if (size < capacity) {
      size <<= 1;
    }
    this.mapper = mapper;
    this.ring = new AtomicReferenceArray<>(size);
    this.mask = size - 1;
  }

  /**
   * Returns the frame of an event, from the ring when a stream encoded it already.
   *
   * @param event the event
   * @return the frame's bytes, UTF-8; shared, so callers must not change them
   * @throws JsonProcessingException when the event cannot be written, which is a bug
   */
  byte[] frame(Event event) throws JsonProcessingException {
    int slot = (int) (event.seq() & mask);
    Frame cached = ring.get(slot);
    if (cached != null && cached.seq() == event.seq()) {
      return cached.bytes();
    }
    byte[] id = ("id: " + event.seq()).getBytes(StandardCharsets.US_ASCII);
    // One line: the JSON writer escapes line breaks inside strings.
    byte[] json = mapper.writeValueAsBytes(Json.EventOut.of(event));
    byte[] bytes = new byte[id.length + DATA.length + json.length + END.length];
    System.arraycopy(id, 0, bytes, 0, id.length);
    System.arraycopy(DATA, 0, bytes, id.length, DATA.length);
    System.arraycopy(json, 0, bytes, id.length + DATA.length, json.length);
    System.arraycopy(END, 0, bytes, id.length + DATA.length + json.length, END.length);
    // Two streams may encode the same seq at once; either frame is right, the last one stays.
    ring.set(slot, new Frame(event.seq(), bytes));
    return bytes;
  }
}
