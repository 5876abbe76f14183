package dev.bothy.bus.app;

import dev.bothy.bus.domain.CheckAcks;
import dev.bothy.bus.domain.PublishOutcome;
import dev.bothy.bus.domain.StreamTail;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's way out of a halted relay, {@code bus republish --from SEQ}: under the relay's
 * lease, publishes the events from {@code SEQ} up to the relay's cursor again (same ids, same
 * headers, in order after the stream's last message), then moves the cursor past what retention
 * removed. It never skips in silence: the events before the log's retention and those between the
 * stream's last {@code Bothy-Seq} and {@code SEQ} are named in the report.
 */
public final class RelayRepublish {

  /**
   * A range of event numbers, both ends included.
   *
   * @param from the first
   * @param to the last
   */
  public record Range(long from, long to) {}

  /**
   * What a republish did.
   *
   * @param streamLastBefore the stream's last {@code Bothy-Seq} before, 0 for an empty stream
   * @param republished the range published again, empty when none
   * @param lostToRetention events after the stream's last message (or from {@code SEQ}) that the
   *     log no longer holds, which no stream will get
   * @param leftOut events after the stream's last message and before {@code SEQ} that the log still
   *     holds, which the operator chose not to republish
   * @param cursor the relay's cursor after
   */
  public record Report(
      long streamLastBefore,
      Optional<Range> republished,
      Optional<Range> lostToRetention,
      Optional<Range> leftOut,
      long cursor) {}

  private final String streamName;
  private final int window;
  private final UnitOfWork unitOfWork;
  private final RelayCursorRepository cursors;
  private final EventLog log;
  private final StreamClient stream;
  private final RelayLease lease;
  private final Clock clock;

  /**
   * Creates the command's service.
   *
   * @param streamName the stream's name
   * @param window {@code bus.relay.window}
   * @param unitOfWork the unit of work
   * @param cursors the cursor store
   * @param log the event log's reads
   * @param stream the stream
   * @param lease the relay's lease; held for the whole republish
   * @param clock names the republish's message ids
   */
  public RelayRepublish(
      String streamName,
      int window,
      UnitOfWork unitOfWork,
      RelayCursorRepository cursors,
      EventLog log,
      StreamClient stream,
      RelayLease lease,
      Clock clock) {
    this.streamName = Objects.requireNonNull(streamName, "streamName");
    this.window = window;
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.cursors = Objects.requireNonNull(cursors, "cursors");
    this.log = Objects.requireNonNull(log, "log");
    this.stream = Objects.requireNonNull(stream, "stream");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Republishes from an event number.
   *
   * @param fromSeq the first event number to publish again
   * @return what was done
   * @throws BothyException {@code conflict} when a running relay holds the lease (it is not
   *     halted); {@code invalid} for a number the stream already holds or past the cursor; {@code
   *     unavailable} when the stream does not acknowledge every message (the cursor is unchanged,
   *     run the command again)
   */
  public Report republish(long fromSeq) {
    if (fromSeq < 1) {
      throw BothyException.invalid("--from must be an event number, 1 or more");
    }
    if (!lease.tryAcquire()) {
      throw BothyException.conflict(
          "a running relay holds the lease, so it is not halted: nothing to republish");
    }
    try {
      long cursor =
          unitOfWork
              .run(() -> cursors.read(streamName))
              .orElseThrow(() -> BothyException.invalid("the relay has no cursor yet"));
      StreamTail tail = stream.tail();
      long streamLast = tail.lastBothySeq().orElse(0);
      if (!tail.empty() && fromSeq <= streamLast) {
        throw BothyException.invalid(
            "the stream holds Bothy-Seq up to "
                + streamLast
                + " already: republish from "
                + (streamLast + 1)
                + " or later");
      }
      if (fromSeq > cursor + 1) {
        throw BothyException.invalid(
            "--from is past the relay's cursor " + cursor + ": the relay publishes those itself");
      }
      long minRetained = log.minRetained();
      long start = minRetained > fromSeq ? minRetained : fromSeq;
      // The stream lacks every event after its last one (fromSeq is never below that); those the
      // log no longer holds are lost, whatever --from says, and only the rest is the choice.
      long missingFrom = Math.min(fromSeq, streamLast + 1);
      Optional<Range> lost =
          minRetained > missingFrom
              ? Optional.of(new Range(missingFrom, minRetained - 1))
              : Optional.empty();
      long choiceFrom = Math.max(missingFrom, minRetained);
      Optional<Range> leftOut =
          fromSeq > choiceFrom ? Optional.of(new Range(choiceFrom, fromSeq - 1)) : Optional.empty();
      long base = tail.lastStreamSeq();
      // After a purge the stream's duplicate window still knows the event ids and would drop the
      // copies: a republish publishes under ids of its own, the event id and its start time.
      String suffix = ".r" + clock.now().toEpochMilli();
      long published = start - 1;
      while (published < cursor) {
        ReadResult read = log.readAfter(published, window);
        if (!(read instanceof ReadResult.Page page) || page.events().isEmpty()) {
          break;
        }
        List<Event> events = page.events().stream().filter(e -> e.seq() <= cursor).toList();
        if (events.isEmpty()) {
          break;
        }
        List<PublishOutcome> outcomes = stream.publish(events, base, suffix);
        CheckAcks.Verdict verdict = CheckAcks.check(base, outcomes);
        if (!verdict.complete(events.size())) {
          throw BothyException.unavailable(
              "the stream did not acknowledge every republished event in order; published up to "
                  + (verdict.acked() == 0 ? published : events.get(verdict.acked() - 1).seq())
                  + ": run the command again from the next number",
              null);
        }
        base = verdict.lastStreamSeq();
        published = events.get(events.size() - 1).seq();
      }
      long next = Math.max(cursor, start - 1);
      if (next != cursor
          && !unitOfWork.run(() -> cursors.compareAndSet(streamName, cursor, next))) {
        throw BothyException.conflict("the relay's cursor moved during the republish: run again");
      }
      Optional<Range> republished =
          published >= start ? Optional.of(new Range(start, published)) : Optional.empty();
      return new Report(streamLast, republished, lost, leftOut, next);
    } finally {
      lease.release();
    }
  }
}
