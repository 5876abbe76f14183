package dev.bothy.bus.app;

import dev.bothy.bus.RelayState;
import dev.bothy.bus.RelayState.Halt;
import dev.bothy.bus.RelayState.Mode;
import dev.bothy.bus.RelayState.Reason;
import dev.bothy.bus.RelayTracer;
import dev.bothy.bus.RelayView;
import dev.bothy.bus.domain.CheckAcks;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.Reconciliation;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One relay round at a time, on the relay loop's thread: take or keep the lease, reconcile with the
 * stream when in doubt, read a batch after the cursor, publish it in windows, and after each
 * window's acks advance the cursor in a short unit of work with a compare-and-set.
 *
 * <p>Order of effects per window: read (a unit that commits) → lease heartbeat → publish and wait
 * for every ack (no transaction open) → compare-and-set of the cursor (a unit of one statement). A
 * crash between the acks and the cursor update leaves the stream ahead of the cursor, which the
 * next holder's reconciliation repairs; a timeout or an unknown outcome leaves the cursor where it
 * was and the next round publishes the same events with the same ids, which the stream
 * deduplicates.
 */
public final class RelayService implements RelayView {
  private static final Logger LOG = LoggerFactory.getLogger(RelayService.class);

  /**
   * The relay's settings.
   *
   * @param stream the stream's name
   * @param batchSize {@code bus.relay.batchSize}: events read per round
   * @param window {@code bus.relay.window}: messages in flight before the relay waits for acks
   * @param takeoverGrace {@code bus.relay.publishAckTimeout}: how long a new holder waits before
   *     its first publish, so a holder that lost its lease unawares has ended its last window
   */
  public record Settings(String stream, int batchSize, int window, Duration takeoverGrace) {
    /** Checks the values. */
    public Settings {
      Objects.requireNonNull(stream, "stream");
      Objects.requireNonNull(takeoverGrace, "takeoverGrace");
      if (batchSize < 1 || window < 1) {
        throw new IllegalArgumentException("batch size and window must be at least 1");
      }
    }
  }

  private final Settings settings;
  private final UnitOfWork unitOfWork;
  private final RelayCursorRepository cursors;
  private final EventLog log;
  private final StreamClient stream;
  private final RelayLease lease;
  private final RelayMetrics metrics;
  private final RelayTracer tracer;
  private final Clock clock;

  // Written by the relay thread only; read by the gauges and health checks.
  private volatile Mode mode = Mode.OFF;
  private volatile Optional<Halt> halt = Optional.empty();
  private volatile long lastPublishedSeq;
  // The relay thread's own state.
  private boolean inStep;
  private long lastStreamSeq;
  // A stream sequence that holds a message the relay knows is there (its last stored, or the
  // tail's at the reconciliation); 0 when it knows none.
  private long storedStreamSeq;
  // True when the previous round did not end on a full batch: the relay waited, and the stream
  // may have been changed meanwhile.
  private boolean resumed = true;
  private Instant publishNotBefore = Instant.MIN;

  /**
   * Creates the service.
   *
   * @param settings the settings
   * @param unitOfWork runs the cursor's units
   * @param cursors the cursor store
   * @param log the event log's reads
   * @param stream the stream
   * @param lease the lease
   * @param metrics the counters
   * @param tracer wraps each round that publishes in a span
   * @param clock the process's clock
   */
  public RelayService(
      Settings settings,
      UnitOfWork unitOfWork,
      RelayCursorRepository cursors,
      EventLog log,
      StreamClient stream,
      RelayLease lease,
      RelayMetrics metrics,
      RelayTracer tracer,
      Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.cursors = Objects.requireNonNull(cursors, "cursors");
    this.log = Objects.requireNonNull(log, "log");
    this.stream = Objects.requireNonNull(stream, "stream");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public RelayState state() {
    return new RelayState(mode, stream.connected(), halt, lastPublishedSeq);
  }

  @Override
  public long lag() {
    return unitOfWork.run(
        () -> {
          long head = log.head();
          long cursor = cursors.read(settings.stream()).orElse(0);
          return Math.max(0, head - cursor);
        });
  }

  /**
   * Writes the cursor row when it is missing (at the oldest retained event; an empty log waits for
   * its first event), before the first round.
   */
  public void ensureCursor() {
    cursorRow();
    mode = Mode.STANDBY;
  }

  /**
   * Runs one round.
   *
   * @return true when a full batch was relayed and more may wait (run again at once)
   * @throws BothyException {@code unavailable} when the stream cannot be reached or did not answer
   *     in time; the cursor holds what was acknowledged, and the next round publishes the rest
   *     again with the same ids
   */
  public boolean round() {
    boolean more = false;
    try {
      more = relayOnce();
      return more;
    } finally {
      resumed = !more;
    }
  }

  private boolean relayOnce() {
    if (!holdLease()) {
      return false;
    }
    if (clock.now().isBefore(publishNotBefore)) {
      return false;
    }
    if (cursorRow().isEmpty()) {
      // An empty log: nothing to relay, and no row until the first event.
      return false;
    }
    if (!inStep && !reconcile()) {
      return false;
    }
    long cursor = readCursor();
    ReadResult read = log.readAfter(cursor, settings.batchSize());
    if (read instanceof ReadResult.ResyncRequired resync) {
      if (mode != Mode.HALTED) {
        LOG.error(
            "bus relay behind retention: stream={} cursor={} min_retained_seq={}",
            settings.stream(),
            cursor,
            resync.minRetainedSeq());
      }
      haltFor(new Halt(Reason.BEHIND_RETENTION, cursor, cursor));
      return false;
    }
    List<Event> events = ((ReadResult.Page) read).events();
    if (events.isEmpty()) {
      return false;
    }
    if (resumed && !lastStoredStillThere()) {
      // Gone while the relay waited: look at the stream again, then read again.
      return reconcile();
    }
    long from = cursor;
    return tracer.round(
        settings.stream(), events.get(0).seq(), events.size(), () -> publishAll(from, events));
  }

  /** Publishes a batch window by window; true when it was full and all of it went out. */
  private boolean publishAll(long cursor, List<Event> events) {
    long at = cursor;
    for (int from = 0; from < events.size(); from += settings.window()) {
      List<Event> window = events.subList(from, Math.min(events.size(), from + settings.window()));
      if (!lease.held()) {
        standBy();
        return false;
      }
      at = publishWindow(at, window);
      if (!inStep || mode != Mode.ACTIVE) {
        return false;
      }
    }
    return events.size() == settings.batchSize();
  }

  /** Gives up the lease; the relay is off until the process starts again. */
  public void stop() {
    lease.release();
    mode = Mode.OFF;
  }

  private boolean holdLease() {
    if (mode == Mode.ACTIVE) {
      // The heartbeat of every round, so an outage of the stream does not idle the session out.
      if (lease.held()) {
        return true;
      }
      standBy();
      return false;
    }
    if (!lease.tryAcquire()) {
      if (mode != Mode.HALTED) {
        mode = Mode.STANDBY;
      } else if (streamInOrder()) {
        // Another process holds the lease and the stream is in order again (a republish): this
        // one is a standby, and its halt gauge must not page for a stream the holder relays.
        mode = Mode.STANDBY;
        halt = Optional.empty();
        LOG.info(
            "bus relay no longer halted, standing by: stream={} reason=stream_in_order",
            settings.stream());
      }
      return false;
    }
    if (mode == Mode.HALTED) {
      // A halted relay looks again whether an operator has put the stream in order; it stays
      // halted, without a new line, until then.
      inStep = false;
      if (!reconcile() || behindRetention()) {
        inStep = false;
        lease.release();
        return false;
      }
      mode = Mode.ACTIVE;
      halt = Optional.empty();
      LOG.info("bus relay resumed: stream={}", settings.stream());
      return true;
    }
    mode = Mode.ACTIVE;
    inStep = false;
    publishNotBefore = clock.now().plus(settings.takeoverGrace());
    LOG.info(
        "bus relay took the lease: stream={} delay_ms={}",
        settings.stream(),
        settings.takeoverGrace().toMillis());
    return true;
  }

  private void standBy() {
    mode = Mode.STANDBY;
    inStep = false;
    LOG.warn("bus relay lost the lease: stream={}", settings.stream());
  }

  /**
   * Whether the stream and the cursor agree, read only (no lease, no cursor move, no halt): in
   * step, or the stream ahead of the cursor as while the holder's window is acknowledged.
   */
  private boolean streamInOrder() {
    StreamTail tail = stream.tail();
    long cursor = readCursor();
    Reconciliation decision = Reconciliation.decide(cursor, tail, facts(cursor, tail));
    return (decision instanceof Reconciliation.InStep || decision instanceof Reconciliation.Ahead)
        && !behindRetention();
  }

  private Reconciliation.LogFacts facts(long cursor, StreamTail tail) {
    OptionalLong last = tail.lastBothySeq();
    return new Reconciliation.LogFacts(
        log.head(),
        log.minRetained(),
        last.isPresent() ? idOf(last.getAsLong()) : Optional.empty(),
        cursor > 0 ? eventAt(cursor).map(Event::occurredAt) : Optional.empty(),
        clock.now());
  }

  /** Compares the stream with the cursor; returns true when the relay may publish. */
  private boolean reconcile() {
    StreamTail tail = stream.tail();
    long cursor = readCursor();
    OptionalLong last = tail.lastBothySeq();
    Reconciliation decision = Reconciliation.decide(cursor, tail, facts(cursor, tail));
    if (decision instanceof Reconciliation.InStep step) {
      return startFrom(cursor, step.lastStreamSeq(), tail.empty());
    }
    if (decision instanceof Reconciliation.Ahead ahead) {
      OptionalLong hole = firstMisplaced(ahead);
      if (hole.isPresent()) {
        haltFor(new Halt(Reason.HOLE_IN_STREAM, hole.getAsLong(), cursor));
        return false;
      }
      if (!compareAndSet(ahead.from(), ahead.to())) {
        return false;
      }
      LOG.warn(
          "bus relay cursor moved to the stream: stream={} cursor={} stream_last_seq={}",
          settings.stream(),
          ahead.from(),
          ahead.to());
      return startFrom(ahead.to(), ahead.lastStreamSeq(), false);
    }
    if (decision instanceof Reconciliation.Behind behind) {
      haltFor(new Halt(Reason.STREAM_BEHIND_LOG, behind.streamLast(), behind.cursor()));
    } else {
      haltFor(new Halt(Reason.STREAM_MISMATCH, last.orElse(0), cursor));
    }
    return false;
  }

  /**
   * Checks that the messages the cursor would skip sit right after the cursor's own message: {@code
   * Bothy-Seq} {@code to, to - 1, ..., from + 1} at the stream's last sequences, and {@code from}
   * just before them unless the stream no longer holds it. A window whose first message the stream
   * refused while another writer's message moved its last sequence can leave the rest stored after
   * a hole; moving the cursor over it would skip an event.
   *
   * @return the {@code Bothy-Seq} expected where the stream holds something else, empty when in
   *     order
   */
  private OptionalLong firstMisplaced(Reconciliation.Ahead ahead) {
    long streamSeq = ahead.lastStreamSeq();
    for (long expected = ahead.to(); expected >= ahead.from(); expected--, streamSeq--) {
      if (expected == 0 || streamSeq < 1) {
        return OptionalLong.empty();
      }
      OptionalLong found = stream.bothySeqAt(streamSeq);
      if (expected == ahead.from() && found.isEmpty()) {
        // The cursor's own message is gone from the stream (age): nothing to compare with.
        return OptionalLong.empty();
      }
      if (found.isEmpty() || found.getAsLong() != expected) {
        return OptionalLong.of(expected);
      }
    }
    return OptionalLong.empty();
  }

  /**
   * Checks, before the first publish after a wait, that the stream still holds the last message the
   * relay knows it stored. A purge keeps the stream's last sequence, so the next window's expected
   * last sequence would still hold and the relay would go on publishing after the gap; a missing
   * message sends it back to the reconciliation, which halts on a stream behind the cursor and
   * tells a message that {@code MaxAge} removed from one a purge removed. One read per wake-up,
   * none between the full batches of a backlog.
   */
  private boolean lastStoredStillThere() {
    if (storedStreamSeq < 1 || stream.bothySeqAt(storedStreamSeq).isPresent()) {
      return true;
    }
    inStep = false;
    return false;
  }

  private boolean startFrom(long cursor, long streamSeq, boolean streamEmpty) {
    storedStreamSeq = streamEmpty ? 0 : streamSeq;
    lastStreamSeq = streamSeq;
    lastPublishedSeq = cursor;
    inStep = true;
    return true;
  }

  private boolean behindRetention() {
    return readCursor() < log.minRetained() - 1;
  }

  /**
   * Publishes one window and moves the cursor over what the stream acknowledged in order; returns
   * the cursor after it.
   */
  private long publishWindow(long cursor, List<Event> window) {
    Instant start = clock.now();
    List<PublishOutcome> outcomes = stream.publish(window, lastStreamSeq);
    CheckAcks.Verdict verdict = CheckAcks.check(lastStreamSeq, outcomes);
    long next = cursor;
    if (verdict.acked() > 0) {
      next = window.get(verdict.acked() - 1).seq();
      int duplicates = 0;
      for (int i = 0; i < verdict.acked(); i++) {
        if (((PublishOutcome.Stored) outcomes.get(i)).duplicate()) {
          duplicates++;
        }
      }
      if (!compareAndSet(cursor, next)) {
        // Someone moved the cursor (an operator's republish, or a holder we did not know of).
        inStep = false;
        return cursor;
      }
      lastStreamSeq = verdict.lastStreamSeq();
      storedStreamSeq = lastStreamSeq;
      lastPublishedSeq = next;
      metrics.published(verdict.acked(), duplicates);
    }
    if (verdict.misplacedAt().isPresent()) {
      long seq = window.get((int) verdict.misplacedAt().getAsLong()).seq();
      haltFor(new Halt(Reason.HOLE_IN_STREAM, seq, next));
      return next;
    }
    if (verdict.complete(window.size())) {
      metrics.window(Duration.between(start, clock.now()));
      return next;
    }
    // Not every message was acknowledged: look at the stream again before the next publish.
    inStep = false;
    if (verdict.wrongLastSequence()) {
      return next;
    }
    throw BothyException.unavailable(
        "the stream did not acknowledge every message of a window within"
            + " bus.relay.publishAckTimeout",
        null);
  }

  private void haltFor(Halt reason) {
    boolean first = mode != Mode.HALTED;
    halt = Optional.of(reason);
    mode = Mode.HALTED;
    inStep = false;
    lease.release();
    if (first) {
      LOG.error(
          "bus relay halted, run bus republish: stream={} status={} stream_last_seq={} cursor={}",
          settings.stream(),
          reason.reason().code(),
          reason.streamLast(),
          reason.cursor());
    }
  }

  private OptionalLong cursorRow() {
    return unitOfWork.run(
        () -> {
          OptionalLong row = cursors.read(settings.stream());
          if (row.isPresent()) {
            return row;
          }
          cursors.ensureAtOldestRetained(settings.stream());
          return cursors.read(settings.stream());
        });
  }

  private long readCursor() {
    return unitOfWork
        .run(() -> cursors.read(settings.stream()))
        .orElseThrow(
            () ->
                BothyException.internal(
                    "the relay cursor row of stream " + settings.stream() + " is missing"));
  }

  private boolean compareAndSet(long expected, long next) {
    return unitOfWork.run(() -> cursors.compareAndSet(settings.stream(), expected, next));
  }

  private Optional<UUID> idOf(long seq) {
    return eventAt(seq).map(Event::id);
  }

  private Optional<Event> eventAt(long seq) {
    if (seq < 1) {
      return Optional.empty();
    }
    ReadResult read = log.readAfter(seq - 1, 1);
    if (read instanceof ReadResult.Page page
        && !page.events().isEmpty()
        && page.events().get(0).seq() == seq) {
      return Optional.of(page.events().get(0));
    }
    return Optional.empty();
  }
}
