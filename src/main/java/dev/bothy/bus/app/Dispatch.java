package dev.bothy.bus.app;

import dev.bothy.bus.BusEvent;
import dev.bothy.bus.BusHandler;
import dev.bothy.bus.DeadLetter;
import dev.bothy.bus.DispatchMetrics;
import dev.bothy.bus.Tx;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.sync.Appender;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventDraft;
import dev.bothy.sync.PayloadCodec;
import dev.bothy.sync.ResourceRef;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch contract (ADR 0024, 0025), shared by both transports: one delivery of one event to
 * the handlers of one consumer that take its type.
 *
 * <p>Per handler, one unit of work first claims the delivery with one statement: it inserts {@code
 * (handler, event_id)} into {@code event_deliveries} with {@code ON CONFLICT DO NOTHING} unless the
 * pair has an open dead letter. A claim that fails commits without calling the handler: parked when
 * a dead letter is open, else a duplicate. Otherwise the handler runs in that unit, so its writes
 * and the row commit together or not at all. A failure's verdict follows {@link VerdictRules}; a
 * handler whose failure is final (a term, or a nak of the last delivery) gets its dead letter at
 * once, in a unit of its own, so a redelivery for another handler's nak does not run it again. The
 * message's verdict is the combination, nak over term over ack, and a nak of the last delivery is a
 * term.
 *
 * <p>Two fault points (ADR 0026), before the handler's commit and after it, do nothing in every
 * process; only a test of this package arms them, to stop a delivery as a process death would.
 *
 * <p>A handler of a projection consumer first takes its consumer's {@link ProjectionLock} shared in
 * its unit; while a replay resets the projection it is not run (outcome {@code paused}, nothing
 * written) and the message comes again after {@link #PAUSED_RETRY}, without counting as a failed
 * delivery (ADR 0027). A projection's handler may not append events.
 */
public final class Dispatch {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatch.class);
  private static final String PARKED = "parked";
  private static final String PAUSED = "paused";

  /**
   * The wait before a delivery that found its projection paused comes again: the first delay of the
   * nak schedule ({@link VerdictRules#delayAfter}), since a reset takes about as long as a
   * transaction.
   */
  public static final Duration PAUSED_RETRY = VerdictRules.delayAfter(1);

  private static final String DUPLICATE = "duplicate";
  // The log transport's event is no longer in the log: nothing ran, nothing was written.
  private static final String GONE = "gone";
  private static final String ACK = "ack";

  /**
   * The verdict of one delivery.
   *
   * @param verdict the message's verdict, after the delivery limit
   * @param nakDelay the wait before the next delivery, for a nak
   * @param perHandler each handler's own outcome, by name, in order
   */
  public record Result(
      Verdict verdict, Optional<Duration> nakDelay, Map<String, String> perHandler) {
    /** Copies the map. */
    public Result {
      Objects.requireNonNull(verdict, "verdict");
      Objects.requireNonNull(nakDelay, "nakDelay");
      perHandler = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perHandler));
    }

    /**
     * Tells whether a handler found its projection paused by a replay: the delivery comes again
     * after {@link #PAUSED_RETRY} and does not count as a failed one.
     *
     * @return true when any handler's outcome is {@code paused}
     */
    public boolean paused() {
      return perHandler.containsValue(PAUSED);
    }
  }

  private final UnitOfWork unitOfWork;
  private final Appender appender;
  private final PayloadCodec codec;
  private final DeliveryRepository deliveries;
  private final DeadLetterRepository deadLetters;
  private final ProjectionLock projections;
  private final DispatchMetrics metrics;
  private final Clock clock;
  private final int errorMessageMaxChars;
  private final Notices live;

  /**
   * The fault points of dispatch (ADR 0026), {@link FaultPoints#NONE} in every process: only a test
   * in this package arms them, through {@link #armFaultPoints}, which is package-private and which
   * ArchUnit keeps every main class from calling ({@code
   * dispatch_fault_points_are_armed_only_by_tests}).
   */
  private volatile FaultPoints faultPoints = FaultPoints.NONE;

  /** The subject prefix of the live hints; the handler's name follows it. */
  public static final String LIVE_SUBJECT_PREFIX = "bothy.live.";

  /**
   * Creates the dispatch.
   *
   * @param unitOfWork the unit of work of the handlers' transactions
   * @param appender the event log's appender, behind {@link Tx#append}
   * @param codec decodes payloads into the event types' records
   * @param deliveries the dedupe table's store
   * @param deadLetters the dead letters' store
   * @param projections the pause of projection consumers during a replay
   * @param metrics where outcomes, durations and dead letters are counted
   * @param clock the delivery time
   * @param errorMessageMaxChars {@code jobs.errorMessageMaxChars}: a dead letter's message is cut
   *     to this
   */
  public Dispatch(
      UnitOfWork unitOfWork,
      Appender appender,
      PayloadCodec codec,
      DeliveryRepository deliveries,
      DeadLetterRepository deadLetters,
      ProjectionLock projections,
      DispatchMetrics metrics,
      Clock clock,
      int errorMessageMaxChars) {
    this(
        unitOfWork,
        appender,
        codec,
        deliveries,
        deadLetters,
        projections,
        metrics,
        clock,
        errorMessageMaxChars,
        Notices.NONE);
  }

  /**
   * Creates the dispatch with a live channel.
   *
   * @param unitOfWork the unit of work of the handlers' transactions
   * @param appender the event log's appender, behind {@link Tx#append}
   * @param codec decodes payloads into the event types' records
   * @param deliveries the dedupe table's store
   * @param deadLetters the dead letters' store
   * @param projections the pause of projection consumers during a replay
   * @param metrics where outcomes, durations and dead letters are counted
   * @param clock the delivery time
   * @param errorMessageMaxChars {@code jobs.errorMessageMaxChars}
   * @param live where {@link Tx#liveHint} publishes after the commit ({@link Notices#NONE} without
   *     NATS)
   */
  public Dispatch(
      UnitOfWork unitOfWork,
      Appender appender,
      PayloadCodec codec,
      DeliveryRepository deliveries,
      DeadLetterRepository deadLetters,
      ProjectionLock projections,
      DispatchMetrics metrics,
      Clock clock,
      int errorMessageMaxChars,
      Notices live) {
    this.projections = Objects.requireNonNull(projections, "projections");
    this.live = Objects.requireNonNull(live, "live");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.appender = Objects.requireNonNull(appender, "appender");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.errorMessageMaxChars = errorMessageMaxChars;
  }

  /** Where dispatch may be stopped as if its process died there (ADR 0026). */
  enum FaultPoint {
    /**
     * Inside the handler's unit, after the handler returned, before the unit's hooks and commit.
     */
    BEFORE_COMMIT,
    /** After the handler's unit committed, before the transport answers the delivery. */
    AFTER_COMMIT
  }

  /**
   * What a test runs at a fault point. To stop dispatch there it throws a {@link FaultCrash}, which
   * leaves dispatch with no verdict, no dead letter and no metric, as a process death would.
   */
  interface FaultPoints {
    /** No fault point armed: the only value production code ever has. */
    FaultPoints NONE = (point, handler, event) -> {};

    /**
     * Called at a fault point.
     *
     * @param point where dispatch is
     * @param handler the handler's name
     * @param event the event delivered
     */
    void reached(FaultPoint point, String handler, Event event);
  }

  /**
   * The stand-in for a process death at a fault point: an {@link Error}, so the transports' catch
   * of runtime exceptions lets it through, and dispatch rethrows it instead of judging it.
   */
  static final class FaultCrash extends Error {
    private static final long serialVersionUID = 1L;

    FaultCrash(FaultPoint point, String handler) {
      super("simulated crash at " + point + " of " + handler, null, false, false);
    }
  }

  /**
   * Arms fault points; for tests in this package only (ADR 0026).
   *
   * @param points what runs at each fault point
   */
  void armFaultPoints(FaultPoints points) {
    this.faultPoints = Objects.requireNonNull(points, "points");
  }

  /**
   * Delivers an event to handlers, each in its own unit of work, and returns the verdict.
   *
   * @param event the stored event
   * @param handlers the consumer's handlers that take the event's type
   * @param deliveryCount this delivery's count, from 1
   * @return the verdict, with the nak delay when it is a nak
   * @throws dev.bothy.kernel.BothyException when a dead letter cannot be written (the database is
   *     away): the transport treats the delivery as failed and delivers it again
   */
  public Result deliver(Event event, List<HandlerRegistry.Registered> handlers, int deliveryCount) {
    Map<String, String> outcomes = new LinkedHashMap<>();
    for (HandlerRegistry.Registered registered : handlers) {
      outcomes.put(
          registered.handler().name(), deliverTo(new Source(event), registered, deliveryCount));
    }
    return result(outcomes, deliveryCount);
  }

  /**
   * Delivers the event of a log transport job to its handler, reading the event inside the
   * handler's unit of work (D-BD-6): an attempt is one unit, the read, the claim and the handler.
   *
   * @param read finds the event in the current unit; empty when the log no longer holds it
   * @param registered the handler
   * @param deliveryCount this delivery's count, from 1
   * @return the verdict, or empty when the event is gone (nothing was written, nothing counted)
   * @throws RuntimeException the read's own failure (the database away), before any verdict: the
   *     job runtime counts it as a failed attempt
   */
  public Optional<Result> deliverReading(
      Supplier<Optional<Event>> read, HandlerRegistry.Registered registered, int deliveryCount) {
    String outcome = deliverTo(new Source(read), registered, deliveryCount);
    if (GONE.equals(outcome)) {
      return Optional.empty();
    }
    return Optional.of(result(Map.of(registered.handler().name(), outcome), deliveryCount));
  }

  private static Result result(Map<String, String> outcomes, int deliveryCount) {
    List<Verdict> verdicts = new ArrayList<>();
    for (String outcome : outcomes.values()) {
      verdicts.add(
          switch (outcome) {
            case "nak" -> Verdict.NAK;
            case "term" -> Verdict.TERM;
            default -> Verdict.ACK;
          });
    }
    if (outcomes.containsValue(PAUSED)) {
      // A pause is no failure: the delivery comes again soon, and the limit does not apply.
      return new Result(Verdict.NAK, Optional.of(PAUSED_RETRY), outcomes);
    }
    Verdict verdict = VerdictRules.limited(VerdictRules.combine(verdicts), deliveryCount);
    return new Result(verdict, VerdictRules.nakDelay(verdict, deliveryCount), outcomes);
  }

  /**
   * The event of a delivery: given (NATS, where it comes in the message), or read in the handler's
   * unit (the log), again at each attempt of the unit.
   */
  private static final class Source {
    private final Supplier<Optional<Event>> read;
    private Event event;

    Source(Event event) {
      this.event = Objects.requireNonNull(event, "event");
      this.read = null;
    }

    Source(Supplier<Optional<Event>> read) {
      this.read = Objects.requireNonNull(read, "read");
    }

    /** In the unit: the event, or null when the log no longer holds it. */
    Event inUnit() {
      if (read != null) {
        // A retry of the unit reads again; a read that fails must not leave an earlier try's
        // event behind, or its failure would be judged as the handler's.
        Event found = null;
        try {
          found = read.get().orElse(null);
        } finally {
          event = found;
        }
      }
      return event;
    }
  }

  private String deliverTo(
      Source source, HandlerRegistry.Registered registered, int deliveryCount) {
    String name = registered.handler().name();
    Instant at = clock.now();
    long start = System.nanoTime();
    Throwable failure = null;
    String outcome = null;
    try {
      // One unit per handler and delivery: the dead-letter check, the delivery row and the
      // handler. A unit of its own for the check cost a pooled connection, the timeouts and a
      // commit per event (bench/run.sh bus-dispatch, D-BD-4).
      outcome =
          unitOfWork.run(
              () -> {
                Event inUnit = source.inUnit();
                return inUnit == null ? GONE : handleOnce(inUnit, registered, name, at);
              });
    } catch (FaultCrash crash) {
      throw crash;
    } catch (Throwable e) { // NOPMD: an Error of a handler is a verdict too (ADR 0025)
      failure = e;
    }
    Event event = source.event;
    if (GONE.equals(outcome)) {
      return GONE;
    }
    if (event == null) {
      // The read failed before the event was known: no handler ran and there is no event to
      // name in a dead letter, so no verdict; the transport counts a failed delivery.
      if (failure instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (failure instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("reading the event failed", failure);
    }
    if (PARKED.equals(outcome) || PAUSED.equals(outcome)) {
      metrics.outcome(name, outcome);
      return outcome;
    }
    metrics.handled(name, System.nanoTime() - start);
    if (failure == null) {
      metrics.outcome(name, outcome);
      faultPoints.reached(FaultPoint.AFTER_COMMIT, name, event);
      return outcome;
    }
    Verdict own = VerdictRules.of(failure);
    Verdict acted = VerdictRules.limited(own, deliveryCount);
    metrics.outcome(name, own.code());
    if (acted == Verdict.TERM) {
      writeDeadLetter(event, registered, failure, deliveryCount);
      LOG.warn(
          "bus handler failed for good, dead letter written: bothy.bus.handler={} bothy.event.seq={}"
              + " error.type={} attempt={}",
          name,
          event.seq(),
          failure.getClass().getName(),
          deliveryCount);
      return "term";
    }
    LOG.info(
        "bus handler failed, delivered again later: bothy.bus.handler={} bothy.event.seq={}"
            + " error.type={} attempt={}",
        name,
        event.seq(),
        failure.getClass().getName(),
        deliveryCount);
    return "nak";
  }

  @SuppressWarnings("unchecked")
  private <P extends Record> String handleOnce(
      Event event, HandlerRegistry.Registered registered, String name, Instant at)
      throws Exception {
    BusHandler<P> handler = (BusHandler<P>) registered.handler();
    boolean projection = registered.consumer().isProjection();
    // Only projections pay for the pause: one statement, which never waits (ADR 0027).
    if (projection && !projections.tryShared(registered.consumer().durable())) {
      return PAUSED;
    }
    // The common case, a first delivery, costs one statement before the handler; only a claim
    // that fails asks which of the two held it (D-NC-3).
    if (!deliveries.claim(name, event.id(), at)) {
      return deadLetters.openFor(name, event.id()) ? PARKED : DUPLICATE;
    }
    P payload = codec.decode(event.payload(), handler.eventType().payloadType());
    BusEvent<P> decoded =
        new BusEvent<>(
            event.id(),
            event.seq(),
            event.type(),
            event.occurredAt(),
            event.resource(),
            event.actorId(),
            payload);
    handler.function().handle(new HandlerTx(name, projection), decoded, at);
    faultPoints.reached(FaultPoint.BEFORE_COMMIT, name, event);
    return ACK;
  }

  private void writeDeadLetter(
      Event event, HandlerRegistry.Registered registered, Throwable failure, int deliveryCount) {
    String message = Objects.toString(failure.getMessage(), "");
    if (message.length() > errorMessageMaxChars) {
      message = message.substring(0, errorMessageMaxChars);
    }
    DeadLetter letter =
        new DeadLetter(
            Ids.newId(),
            registered.handler().name(),
            registered.consumer().durable(),
            event.id(),
            event.seq(),
            event.type(),
            VerdictRules.failureKind(failure),
            failure.getClass().getName(),
            message,
            deliveryCount,
            clock.now(),
            Optional.empty(),
            0);
    unitOfWork.run(() -> deadLetters.upsert(letter));
    metrics.deadLetter(registered.handler().name());
  }

  private static byte[] liveBody(String handler, ResourceRef resource) {
    String type = resource.type().replace("\\", "\\\\").replace("\"", "\\\"");
    return ("{\"handler\":\""
            + handler
            + "\",\"resource_type\":\""
            + type
            + "\",\"resource_id\":\""
            + resource.id()
            + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The handler's view of its unit of work. */
  private final class HandlerTx implements Tx {
    private final String handler;
    private final boolean projection;

    HandlerTx(String handler, boolean projection) {
      this.handler = handler;
      this.projection = projection;
    }

    @Override
    public List<UUID> append(EventDraft... drafts) {
      if (projection) {
        // A replay runs the handler again for every event: its events would be doubled.
        throw new IllegalStateException(
            "the bus handler "
                + handler
                + " belongs to a projection, which appends no events (a replay would append them"
                + " again)");
      }
      return appender.append(drafts);
    }

    @Override
    public void afterCommit(Runnable callback) {
      unitOfWork.afterCommit(callback);
    }

    @Override
    public void liveHint(ResourceRef resource) {
      Objects.requireNonNull(resource, "resource");
      byte[] body = liveBody(handler, resource);
      unitOfWork.afterCommit(() -> live.publish(LIVE_SUBJECT_PREFIX + handler, body));
    }

    @Override
    public String handler() {
      return handler;
    }
  }
}
