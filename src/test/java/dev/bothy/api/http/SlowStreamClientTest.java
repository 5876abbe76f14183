package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiApp.InOrder;
import dev.bothy.wire.ApiApp.Sse;
import dev.bothy.wire.ApiAppExtension;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/events/stream} with a client that stops reading: the tail's bounded buffer drops
 * it with {@code resync_required} while a reading client gets every event. Its own application,
 * because the 40,000 events it appends would be the backlog of every other stream test.
 */
class SlowStreamClientTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  @RegisterExtension
  static final ApiAppExtension APP = new ApiAppExtension(PG, ApiApp.SMALL_SYNC_LIMITS);

  @Test
  void a_client_that_stops_reading_is_dropped_with_a_resync_and_a_reader_gets_everything()
      throws Exception {
    APP.app().waitForNoOpenStream();
    long start = APP.app().head();
    int total = 40_000;
    try (Socket slow = new Socket()) {
      // A small receive buffer, so the server's writes block soon once nobody reads.
      slow.setReceiveBufferSize(4096);
      slow.connect(new InetSocketAddress("127.0.0.1", APP.app().port()));
      OutputStream out = slow.getOutputStream();
      out.write(
          ("GET /v1/events/stream?after="
                  + start
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + ApiApp.SAM
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      slow.setSoTimeout(30_000);
      ChunkedLines lines = new ChunkedLines(slow.getInputStream());
      // The server subscribes before it writes the stream's first comment: once it is read, every
      // event appended below reaches the slow client's bounded buffer, none comes from the log as
      // backlog (a backlog is read at the writer's pace and never overflows, so a late subscription
      // would never be dropped and the stream would send heartbeats forever).
      String opened = ": stream after " + start;
      assertThat(lines.readLine()).as("the slow client's stream opened").isEqualTo(opened);
      String line;
      try (Sse fast = APP.app().stream("?after=" + start, Map.of())) {
        AtomicLong fastAt = new AtomicLong(start);
        // A resync event has no id, so it breaks the order: the reading client was dropped.
        CompletableFuture<InOrder> received =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return fast.readInOrder(start + 1, start + total, fastAt::set);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
        for (int i = 0; i < total / 100; i++) {
          APP.app().append(100);
          // The reading client stays well within its buffer (tailSubscriberBuffer 2000), however
          // slow the machine, while the other one never reads.
          long appended = start + (i + 1) * 100L;
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (appended - fastAt.get() > 1000 && !received.isDone()) {
            assertThat(System.nanoTime()).as("the reading client keeps up").isLessThan(deadline);
            Thread.sleep(1);
          }
        }
        assertThat(received.get(120, TimeUnit.SECONDS))
            .as("the reading client got every event in order")
            .isEqualTo(new InOrder(start + total, Optional.empty()));
      }
      // Now read the slow one: it was dropped and told to resync. Bounded: a stream that was not
      // dropped sends heartbeats forever.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      boolean resync = false;
      long ids = 0;
      while (!resync && System.nanoTime() < deadline && (line = lines.readLine()) != null) {
        resync = line.equals("event: resync_required");
        if (line.startsWith("id: ")) {
          ids++;
        }
      }
      assertThat(resync)
          .as("the slow client got resync_required within 60 s (it read %d events first)", ids)
          .isTrue();
      assertThat(ids).as("the slow client was dropped before the last event").isLessThan(total);
    }
  }

  /**
   * The lines of a chunked HTTP/1.1 response body read from a raw socket: a chunk may end inside an
   * event, so lines are split only after the chunk framing is removed.
   */
  private static final class ChunkedLines {
    private final InputStream in;
    private int left;
    private boolean started;
    private boolean ended;

    ChunkedLines(InputStream raw) throws IOException {
      in = new BufferedInputStream(raw);
      assertThat(rawLine()).as("status line").startsWith("HTTP/1.1 200 ");
      boolean chunked = false;
      String header;
      while ((header = rawLine()) != null && !header.isEmpty()) {
        chunked |= header.equalsIgnoreCase("Transfer-Encoding: chunked");
      }
      assertThat(chunked).as("a chunked body").isTrue();
    }

    /**
     * Reads the next line of the body.
     *
     * @return the line without its end, null at the end of the body
     * @throws IOException when reading fails or times out
     */
    String readLine() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = bodyByte()) != -1 && b != '\n') {
        line.write(b);
      }
      return b == -1 && line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    private int bodyByte() throws IOException {
      if (ended) {
        return -1;
      }
      if (left == 0) {
        if (started) {
          assertThat(rawLine()).as("the end of a chunk").isEmpty();
        }
        started = true;
        String size = rawLine();
        left = size == null ? 0 : Integer.parseInt(size.split(";", 2)[0].trim(), 16);
        if (left == 0) {
          ended = true;
          return -1;
        }
      }
      int b = in.read();
      if (b == -1) {
        throw new EOFException("the connection closed inside a chunk");
      }
      left--;
      return b;
    }

    private String rawLine() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1 && b != '\n') {
        if (b != '\r') {
          line.write(b);
        }
      }
      return b == -1 && line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
    }
  }
}
