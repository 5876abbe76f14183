package dev.bothy.sync.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.Phase;
import dev.bothy.kernel.txn.TxKey;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.telemetry.TraceContext;
import dev.bothy.sync.AppendReceipt;
import dev.bothy.sync.Appender;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.PayloadCodec;
import dev.bothy.sync.domain.AppendRules;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.LongStream;

/**
 * The {@link Appender}: checks and encodes drafts in the work phase and buffers them in the unit
 * ({@link #BUFFER}); {@link AppendHook} numbers and writes them in the sync phase.
 */
public final class AppendService implements Appender {
  /** The unit's buffer of appended events, read by the sync phase hook. */
  static final TxKey<List<PendingEvent>> BUFFER = TxKey.of("sync.append.buffer");

  /** The number the sync phase hook gave the unit's first buffered event; 0 until then. */
  static final TxKey<Numbering> NUMBERING = TxKey.of("sync.append.numbering");

  /** Holds the first number of a unit's block, set once by {@link AppendHook}. */
  static final class Numbering {
    private volatile long first;

    void numberedFrom(long firstSeq) {
      first = firstSeq;
    }

    long first() {
      return first;
    }
  }

  private final UnitOfWork unitOfWork;
  private final EventTypes types;
  private final PayloadCodec codec;
  private final Clock clock;
  private final long maxPayloadBytes;

  /**
   * Creates the appender.
   *
   * @param unitOfWork the unit of work whose units carry the buffer
   * @param types the event type catalogue
   * @param codec encodes payloads
   * @param clock the time of {@code occurred_at}
   * @param maxPayloadBytes {@code sync.maxPayloadBytes}
   */
  public AppendService(
      UnitOfWork unitOfWork,
      EventTypes types,
      PayloadCodec codec,
      Clock clock,
      long maxPayloadBytes) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.types = Objects.requireNonNull(types, "types");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxPayloadBytes = maxPayloadBytes;
  }

  @Override
  public List<UUID> append(EventDraft... drafts) {
    return buffer(drafts).stream().map(PendingEvent::id).toList();
  }

  @Override
  public AppendReceipt appendNumbered(EventDraft... drafts) {
    Numbering numbering = unitOfWork.computeIfAbsent(NUMBERING, Numbering::new);
    int offset = unitOfWork.get(BUFFER).map(List::size).orElse(0);
    List<UUID> ids = buffer(drafts).stream().map(PendingEvent::id).toList();
    return new Receipt(ids, numbering, offset);
  }

  /** A receipt reading the unit's numbering: its events sit at {@code offset} in the block. */
  private record Receipt(List<UUID> ids, Numbering numbering, int offset) implements AppendReceipt {
    @Override
    public List<Long> seqs() {
      long first = numbering.first();
      if (first == 0) {
        throw BothyException.internal("the events are numbered in the sync phase of their unit");
      }
      return LongStream.range(0, ids.size()).mapToObj(i -> first + offset + i).toList();
    }
  }

  /** Checks every draft, then buffers them all; returns the buffered events. */
  private List<PendingEvent> buffer(EventDraft... drafts) {
    Phase phase = unitOfWork.currentPhase();
    if (phase != Phase.WORK) {
      throw BothyException.internal(
          "events are appended in the work phase of a unit, not in " + phase.code());
    }
    // Check every draft before buffering any, so a bad one leaves the buffer as it was.
    Instant now = clock.now();
    Optional<String> traceparent = TraceContext.currentTraceparent();
    List<PendingEvent> checked = new ArrayList<>(drafts.length);
    for (EventDraft draft : drafts) {
      EventType<?> type =
          types
              .find(draft.type())
              .orElseThrow(() -> BothyException.invalid("unknown event type: " + draft.type()));
      AppendRules.checkShape(
          type.name(),
          type.payloadType(),
          type.resourceType(),
          draft.payload(),
          draft.resource().type());
      String json = codec.encode(draft.payload());
      AppendRules.checkSize(
          type.name(), json.getBytes(StandardCharsets.UTF_8).length, maxPayloadBytes);
      checked.add(
          new PendingEvent(
              Ids.newId(), type.name(), now, draft.resource(), draft.actorId(), json, traceparent));
    }
    unitOfWork.computeIfAbsent(BUFFER, ArrayList::new).addAll(checked);
    return checked;
  }
}
