package dev.bothy.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.testing.PgExtension;
import dev.bothy.wire.ApiApp;
import dev.bothy.wire.ApiApp.InOrder;
import dev.bothy.wire.ApiApp.Sse;
import dev.bothy.wire.ApiAppExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
      // Now read the slow one: it was dropped and told to resync.
      slow.setSoTimeout(30_000);
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(slow.getInputStream(), StandardCharsets.UTF_8));
      boolean resync = false;
      String line;
      while (!resync && (line = lines.readLine()) != null) {
        resync = line.equals("event: resync_required");
      }
      assertThat(resync).as("the slow client got resync_required").isTrue();
    }
  }
}
