package dev.bothy.bus.adapters.nats;

import dev.bothy.bus.app.StreamClient;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.kernel.BothyException;
import dev.bothy.sync.Event;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * The relay's {@link StreamClient} over a jnats connection: asynchronous publishes with {@code
 * Nats-Msg-Id}, the expected stream and the expected last sequence, and the stream's tail through
 * the JetStream management API.
 */
public final class JetStreamClient implements StreamClient {
  /** JetStream's error code for a publish whose expected last sequence was not the stream's. */
  static final int WRONG_LAST_SEQUENCE = 10071;

  private final Connection connection;
  private final String stream;
  private final UnaryOperator<String> subjectOf;
  private final Duration ackTimeout;
  private final JetStream jetStream;
  private final JetStreamManagement management;

  /**
   * Creates the client.
   *
   * @param connection the process's NATS connection (reconnecting forever)
   * @param stream the stream's name
   * @param subjectOf the subject of an event type ({@code Streams.subjectOf})
   * @param ackTimeout {@code bus.relay.publishAckTimeout}: how long a window waits for its acks
   * @throws IOException when JetStream is not available on the connection
   */
  public JetStreamClient(
      Connection connection, String stream, UnaryOperator<String> subjectOf, Duration ackTimeout)
      throws IOException {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.stream = Objects.requireNonNull(stream, "stream");
    this.subjectOf = Objects.requireNonNull(subjectOf, "subjectOf");
    this.ackTimeout = Objects.requireNonNull(ackTimeout, "ackTimeout");
    this.jetStream = connection.jetStream();
    this.management = connection.jetStreamManagement();
  }

  @Override
  public StreamTail tail() {
    try {
      StreamInfo info = management.getStreamInfo(stream);
      StreamState state = info.getStreamState();
      Duration maxAge = info.getConfiguration().getMaxAge();
      if (state.getMsgCount() == 0) {
        return StreamTail.empty(state.getLastSequence(), maxAge);
      }
      MessageInfo last = management.getMessage(stream, state.getLastSequence());
      OptionalLong bothySeq = OptionalLong.empty();
      Optional<String> id = Optional.empty();
      if (last.getHeaders() != null) {
        String seq = last.getHeaders().getFirst(EventMessage.BOTHY_SEQ);
        if (seq != null && seq.matches("[0-9]{1,18}")) {
          bothySeq = OptionalLong.of(Long.parseLong(seq));
        }
        // A republished message carries the event id and a suffix after a dot (RelayRepublish).
        id =
            Optional.ofNullable(last.getHeaders().getFirst("Nats-Msg-Id"))
                .map(msgId -> msgId.contains(".") ? msgId.substring(0, msgId.indexOf('.')) : msgId);
      }
      return new StreamTail(last.getSeq(), false, bothySeq, id, maxAge);
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      throw BothyException.unavailable("the stream " + stream + " could not be read", e);
    }
  }

  @Override
  public List<PublishOutcome> publish(List<Event> events, long base, String idSuffix) {
    long deadline = System.nanoTime() + ackTimeout.toNanos();
    List<CompletableFuture<PublishAck>> futures = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      PublishOptions options =
          PublishOptions.builder()
              .messageId(event.id() + idSuffix)
              .expectedStream(stream)
              .expectedLastSequence(base + i)
              .build();
      try {
        futures.add(
            jetStream.publishAsync(
                subjectOf.apply(event.type()),
                EventMessage.headers(event),
                EventMessage.body(event),
                options));
      } catch (RuntimeException e) {
        // A closed connection refuses at once; the rest of the window is unknown too.
        futures.add(CompletableFuture.failedFuture(e));
      }
    }
    List<PublishOutcome> outcomes = new ArrayList<>(futures.size());
    for (CompletableFuture<PublishAck> future : futures) {
      outcomes.add(outcome(future, deadline));
    }
    return outcomes;
  }

  private static PublishOutcome outcome(CompletableFuture<PublishAck> future, long deadline) {
    try {
      long left = Math.max(0, deadline - System.nanoTime());
      PublishAck ack = future.get(left, TimeUnit.NANOSECONDS);
      return new PublishOutcome.Stored(ack.getSeqno(), ack.isDuplicate());
    } catch (ExecutionException e) {
      return new PublishOutcome.Failed(wrongLastSequence(e));
    } catch (TimeoutException e) {
      return new PublishOutcome.Failed(false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new PublishOutcome.Failed(false);
    }
  }

  /** jnats hands an error answer over wrapped in a RuntimeException: look along the causes. */
  private static boolean wrongLastSequence(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JetStreamApiException api) {
        return api.getApiErrorCode() == WRONG_LAST_SEQUENCE;
      }
    }
    return false;
  }

  @Override
  public OptionalLong bothySeqAt(long streamSeq) {
    try {
      MessageInfo m = management.getMessage(stream, streamSeq);
      String seq = m.getHeaders() == null ? null : m.getHeaders().getFirst(EventMessage.BOTHY_SEQ);
      return OptionalLong.of(seq != null && seq.matches("[0-9]{1,18}") ? Long.parseLong(seq) : -1);
    } catch (JetStreamApiException e) {
      // No message at that sequence: removed by age or a purge, or never stored.
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      throw BothyException.unavailable("the stream " + stream + " could not be read", e);
    }
  }

  @Override
  public boolean connected() {
    return connection.getStatus() == Connection.Status.CONNECTED;
  }
}
