package dev.bothy.sync.app;

import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.sync.ConsumerHandler;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.ConsumerState;
import dev.bothy.sync.Consumers;
import dev.bothy.sync.Event;
import dev.bothy.sync.RoundTracer;
import dev.bothy.sync.domain.PlanRound;
import dev.bothy.sync.domain.RoundPlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker consumers of the event log: registration, the cursor rows and one round.
 *
 * <p>A round is one unit of work: lock the consumer's cursor row with {@code FOR UPDATE SKIP
 * LOCKED} (a held row ends the round at once), read up to {@code consumer.batchSize} events after
 * it, plan with {@link PlanRound}, hand each event to the handler (which inserts its jobs in the
 * same unit), refuse a unit that buffered events, and advance the cursor. Jobs and cursor commit
 * together, so every event creates its jobs exactly once, with any number of workers and after a
 * crash anywhere before the commit.
 */
public final class ConsumerService implements Consumers {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerService.class);

  private final UnitOfWork unitOfWork;
  private final ConsumerCursorRepository cursors;
  private final EventRepository events;
  private final int batchSize;
  private final Map<ConsumerName, ConsumerHandler> handlers = new LinkedHashMap<>();
  private volatile boolean frozen;
  // The thread of each running round, for cancelRound.
  private final Map<ConsumerName, Thread> running = new ConcurrentHashMap<>();

  /**
   * Creates the service.
   *
   * @param unitOfWork runs each round and read in its own unit
   * @param cursors the cursor rows
   * @param events the log
   * @param batchSize {@code consumer.batchSize}
   */
  public ConsumerService(
      UnitOfWork unitOfWork,
      ConsumerCursorRepository cursors,
      EventRepository events,
      int batchSize) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.cursors = Objects.requireNonNull(cursors, "cursors");
    this.events = Objects.requireNonNull(events, "events");
    if (batchSize < 1) {
      throw new IllegalArgumentException("consumer.batchSize must be at least 1");
    }
    this.batchSize = batchSize;
  }

  @Override
  public synchronized void register(ConsumerName name, ConsumerHandler handler) {
    if (frozen) {
      throw new IllegalStateException(
          "cannot register the consumer " + name + ": the consumers have started");
    }
    if (name == null || !name.valid()) {
      throw new IllegalArgumentException(
          "unknown consumer name " + name + "; one of " + ConsumerName.names());
    }
    if (handler == null) {
      throw new IllegalArgumentException("the consumer " + name + " needs a handler");
    }
    if (handlers.containsKey(name)) {
      throw new IllegalStateException("the consumer " + name + " is registered twice");
    }
    handlers.put(name, handler);
  }

  @Override
  public synchronized List<ConsumerName> registered() {
    return List.copyOf(handlers.keySet());
  }

  /**
   * The registered consumers, frozen: no registration after this call.
   *
   * @return the names, in registration order
   */
  public synchronized List<ConsumerName> freeze() {
    frozen = true;
    return List.copyOf(handlers.keySet());
  }

  /**
   * Creates the cursor row of every registered consumer at the head of the log, in one unit; rows
   * that exist stay. A new consumer therefore never replays the retained events.
   */
  public void ensure() {
    List<ConsumerName> names = List.copyOf(handlers.keySet());
    unitOfWork.run(
        () -> {
          for (ConsumerName name : names) {
            cursors.ensureAtHead(name);
          }
          return null;
        });
  }

  /**
   * Runs one round of a consumer.
   *
   * @param name a registered consumer
   * @return locked, idle or processed (with the count and whether the batch was full)
   * @throws dev.bothy.sync.domain.ConsumerGap for a hole retention does not explain
   * @throws RuntimeException whatever the handler or the database threw; the round rolled back
   */
  public RoundResult round(ConsumerName name) {
    return round(name, RoundTracer.NONE);
  }

  /**
   * Runs one round of a consumer as {@link #round(ConsumerName)} does, with the part that handles a
   * batch inside the tracer's span: a round that finds nothing to do starts no span, so an idle
   * worker records no trace while its consumers poll (the caller runs the round untraced).
   *
   * @param name a registered consumer
   * @param tracer wraps the handling of a non-empty batch in a span
   * @return locked, idle or processed (with the count and whether the batch was full)
   * @throws dev.bothy.sync.domain.ConsumerGap for a hole retention does not explain
   * @throws RuntimeException whatever the handler or the database threw; the round rolled back
   */
  public RoundResult round(ConsumerName name, RoundTracer tracer) {
    ConsumerHandler handler = handlers.get(name);
    if (handler == null) {
      throw new IllegalArgumentException("the consumer " + name + " is not registered");
    }
    Thread self = Thread.currentThread();
    // One runner thread per consumer runs its rounds; a second caller only finds the row locked.
    running.put(name, self);
    try {
      return roundInUnit(name, handler, tracer);
    } finally {
      running.remove(name, self);
    }
  }

  /**
   * Cancels the running round of a consumer on the database server: its statement fails at once and
   * the round rolls back, with nothing of it committed. For a stop whose budget ran out; the caller
   * interrupts the round's thread as well, for a handler that waits outside the database. Does
   * nothing when no round of the consumer runs.
   *
   * @param name the consumer
   */
  public void cancelRound(ConsumerName name) {
    Thread thread = running.get(name);
    if (thread != null) {
      unitOfWork.cancelStatement(thread);
    }
  }

  private RoundResult roundInUnit(ConsumerName name, ConsumerHandler handler, RoundTracer tracer) {
    return unitOfWork.run(
        () -> {
          OptionalLong locked = cursors.lock(name);
          if (locked.isEmpty()) {
            if (!cursors.exists(name)) {
              throw BothyException.internal(
                  "the consumer "
                      + name
                      + " has no cursor row; a restart of the worker creates it at the head");
            }
            return RoundResult.LOCKED;
          }
          long lastSeq = locked.getAsLong();
          List<Event> batch = events.readAfter(lastSeq, batchSize);
          if (batch.isEmpty()) {
            return RoundResult.IDLE;
          }
          return tracer.round(name.value(), () -> handle(name, handler, lastSeq, batch));
        });
  }

  private RoundResult handle(
      ConsumerName name, ConsumerHandler handler, long lastSeq, List<Event> batch)
      throws Exception {
    List<Long> seqs = new ArrayList<>(batch.size());
    batch.forEach(e -> seqs.add(e.seq()));
    // The minimum is read only when the batch does not follow the cursor; the round's
    // reads hold ACCESS SHARE on event_log, so no partition goes in between.
    long minRetained = seqs.get(0) == lastSeq + 1 ? lastSeq + 1 : events.minRetained();
    RoundPlan plan = PlanRound.plan(lastSeq, seqs, minRetained);
    if (plan.lostEvents()) {
      // Once the skip is committed, and only then: a round that fails or is retried after
      // planning it has skipped nothing and must not report the loss again and again.
      long first = plan.process().get(0);
      unitOfWork.afterCommit(
          () ->
              LOG.error(
                  "event consumer lost events to retention: "
                      + TelemetryNames.CONSUMER_NAME
                      + "={} "
                      + TelemetryNames.EVENT_SEQ
                      + "={} "
                      + TelemetryNames.EVENT_LOST_FROM
                      + "={} "
                      + TelemetryNames.EVENT_LOST_TO
                      + "={}",
                  name,
                  first,
                  plan.lostFrom(),
                  plan.lostTo()));
      handler.eventsLost(plan.lostFrom(), plan.lostTo());
    }
    for (Event event : batch) {
      handler.handleEvent(event);
    }
    if (unitOfWork.get(AppendService.BUFFER).filter(b -> !b.isEmpty()).isPresent()) {
      throw BothyException.internal(
          "the consumer " + name + " appended events in its round; a round may insert jobs only");
    }
    if (cursors.advance(name, plan.newLastSeq()) != 1) {
      throw BothyException.internal("the cursor row of the consumer " + name + " is gone");
    }
    return new RoundResult(RoundResult.Outcome.PROCESSED, batch.size(), batch.size() == batchSize);
  }

  @Override
  public List<ConsumerState> states() {
    return unitOfWork.run(
        () -> {
          long head = events.head();
          List<ConsumerState> states = new ArrayList<>();
          for (ConsumerCursorRepository.Cursor c : cursors.list()) {
            Optional<Instant> oldest =
                c.lastSeq() < head ? cursors.oldestAfter(c.lastSeq()) : Optional.empty();
            states.add(new ConsumerState(c.name(), c.lastSeq(), head, oldest, c.updatedAt()));
          }
          return states;
        });
  }
}
