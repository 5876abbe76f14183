package dev.bothy.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.api.ApiMetrics;
import dev.bothy.sync.LogTail;
import dev.bothy.sync.TailSignal;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Server-Sent Event streams of one process over its {@link LogTail}: at most {@code
 * api.maxStreams} at once, each on its own request thread, writing the backlog and then live events
 * with {@code id:} set to the seq, a comment every {@code api.streamHeartbeat} when idle, and a
 * {@code resync_required} event before it closes when the tail dropped it (too slow for the tail's
 * buffer, or below the retention window). A client that stops reading blocks only its own thread;
 * the tail drops its subscription and goes on with the others.
 */
public final class EventStreams {
  private static final Logger LOG = LoggerFactory.getLogger(EventStreams.class);
  private static final byte[] HEARTBEAT = ": heartbeat\n\n".getBytes(StandardCharsets.US_ASCII);

  // Frames gather here between flushes; a flush follows each drained batch.
  private static final int WRITE_BUFFER_BYTES = 8192;

  private final LogTail tail;
  private final ObjectMapper mapper;
  private final EventFrames frames;
  private final ApiMetrics metrics;
  private final Duration heartbeat;
  private final Semaphore permits;
  private final Set<Thread> writers = ConcurrentHashMap.newKeySet();
  private volatile boolean closing;

  EventStreams(
      LogTail tail,
      ObjectMapper mapper,
      ApiMetrics metrics,
      Duration heartbeat,
      int maxStreams,
      int frameRing) {
    this.tail = tail;
    this.mapper = mapper;
    this.frames = new EventFrames(mapper, frameRing);
    this.metrics = metrics;
    this.heartbeat = heartbeat;
    this.permits = new Semaphore(maxStreams);
  }

  /**
   * Takes one of the {@code api.maxStreams} places.
   *
   * @return true when a place was free; then {@link #open(long)} must follow
   */
  boolean tryReserve() {
    return !closing && permits.tryAcquire();
  }

  /**
   * Tells whether a stream could open now, without taking a place (for {@code HEAD}).
   *
   * @return true when a place is free and the process is not stopping
   */
  boolean hasRoom() {
    return !closing && permits.availablePermits() > 0;
  }

  /** Gives back a place taken by {@link #tryReserve()} when the stream never opened. */
  void release() {
    permits.release();
  }

  /**
   * Opens a reserved stream after a number.
   *
   * @param afterSeq the last number the client has
   * @return the body writer; it gives the place back when it ends
   */
  EventStream open(long afterSeq) {
    LogTail.Subscription subscription;
    try {
      subscription = tail.subscribe(afterSeq);
    } catch (RuntimeException e) {
      permits.release();
      throw e;
    }
    return new EventStream(
        output -> {
          Thread self = Thread.currentThread();
          writers.add(self);
          metrics.streamOpened();
          try (subscription;
              OutputStream out = new BufferedOutputStream(output, WRITE_BUFFER_BYTES)) {
            // Sends the headers at once, so the client knows the stream is open.
            out.write(ascii(": stream after " + afterSeq + "\n\n"));
            out.flush();
            write(subscription, out);
          } catch (IOException e) {
            // The client went away: nothing to answer.
            LOG.debug("event stream ended by the client: after={}", afterSeq);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            writers.remove(self);
            permits.release();
            metrics.streamClosed();
          }
        });
  }

  private void write(LogTail.Subscription subscription, OutputStream out)
      throws IOException, InterruptedException {
    while (!closing) {
      Optional<TailSignal> signal = subscription.poll(heartbeat);
      if (signal.isEmpty()) {
        out.write(HEARTBEAT);
        out.flush();
        continue;
      }
      int events = 0;
      // Drains what is already buffered before one flush; the buffer is bounded by
      // sync.tailSubscriberBuffer.
      while (signal.isPresent()) {
        if (signal.get() instanceof TailSignal.Resync resync) {
          metrics.streamed(events);
          out.write(
              ascii(
                  "event: resync_required\ndata: "
                      + mapper.writeValueAsString(
                          Map.of(
                              "after", resync.afterSeq(),
                              "min_retained_seq", resync.minRetainedSeq()))
                      + "\n\n"));
          out.flush();
          return;
        }
        TailSignal.Delivered delivered = (TailSignal.Delivered) signal.get();
        out.write(frames.frame(delivered.event()));
        events++;
        signal = subscription.poll(Duration.ZERO);
      }
      out.flush();
      metrics.streamed(events);
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The body of one event stream: {@link StreamFlushInterceptor} recognises it and lets its flushes
   * through to the client.
   */
  static final class EventStream implements StreamingOutput {
    private final StreamingOutput body;

    private EventStream(StreamingOutput body) {
      this.body = body;
    }

    @Override
    public void write(OutputStream output) throws IOException {
      body.write(output);
    }
  }

  /**
   * Ends every open stream and refuses new ones: for shutdown, so streams do not hold the
   * connectors open until the grace period ends. Clients reconnect with {@code Last-Event-ID}.
   */
  public void close() {
    closing = true;
    writers.forEach(Thread::interrupt);
  }
}
