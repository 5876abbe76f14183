package dev.bothy.bus.app;

import dev.bothy.bus.domain.Verdict;
import dev.bothy.bus.domain.VerdictRules;
import dev.bothy.kernel.BothyException;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobInsert;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.sync.EventLog;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * The job {@code bus.dispatch} of the log transport (ADR 0024): one job per event and interested
 * handler; its attempt is the delivery count. An ack completes the job; a nak fails the attempt,
 * and the job runtime retries it after the kind's delays, which are the nak delays of {@link
 * VerdictRules}; a term (or the nak of the {@link VerdictRules#MAX_DELIVER}th attempt) has written
 * its dead letter and completes the job.
 */
public final class DispatchJob {
  /** The kind's name. */
  public static final String KIND = "bus.dispatch";

  /** The queue of the dispatch jobs, listed in {@code jobs.queues} of the worker processes. */
  public static final String QUEUE = "bus";

  /**
   * The args: IDs and numbers only.
   *
   * @param handler the handler's id ({@link HandlerRegistry#idOf})
   * @param eventId the event's id
   * @param seq the event's number
   */
  public record Args(UUID handler, UUID eventId, long seq) {}

  private final HandlerRegistry registry;
  private final Dispatch dispatch;
  private final EventReadAhead events;

  /**
   * Creates the job.
   *
   * @param registry the handlers of this process
   * @param dispatch the dispatch contract
   * @param log the event log, where the job reads its event
   * @param readAhead {@code bus.dispatch.readAhead}: a job that reads its event reads this many
   *     from it on, for the jobs of the next events (D-BD-12); at least 1
   * @param readAheadKeep {@code bus.dispatch.readAheadKeep}: how long an event read ahead is served
   *     from memory
   */
  public DispatchJob(
      HandlerRegistry registry,
      Dispatch dispatch,
      EventLog log,
      int readAhead,
      Duration readAheadKeep) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.events = new EventReadAhead(log, readAhead, readAheadKeep, System::nanoTime);
  }

  /**
   * The job kind: queue {@link #QUEUE}, {@link VerdictRules#MAX_DELIVER} attempts, the nak delays
   * as its retry delays.
   *
   * @param timeout {@code bus.dispatch.jobTimeout}: the longest one attempt may run
   * @return the kind
   */
  public JobKind<Args> kind(Duration timeout) {
    return kind(this::work, timeout);
  }

  /**
   * The kind for a process that only inserts dispatch jobs (the {@code bus dead replay} command):
   * its work refuses to run there.
   *
   * @param timeout {@code bus.dispatch.jobTimeout}
   * @return the kind
   */
  public static JobKind<Args> insertOnlyKind(Duration timeout) {
    return kind(
        (context, args) -> {
          throw new IllegalStateException("bus.dispatch jobs are worked by worker processes");
        },
        timeout);
  }

  private static JobKind<Args> kind(dev.bothy.platform.jobs.JobWork<Args> work, Duration timeout) {
    return JobKind.builder(KIND, Args.class, work)
        .queue(QUEUE)
        .maxAttempts(VerdictRules.MAX_DELIVER)
        .retryDelays((failed, jitter) -> VerdictRules.delayAfter(failed))
        .timeout(timeout)
        .build();
  }

  /**
   * The insert of the dispatch of an event to a handler, unique per pair while the job exists.
   *
   * @param handler the registered handler; its id was derived once, at registration, since this
   *     runs for every event and handler in the worker consumer's round (D-BD-16)
   * @param eventId the event's id
   * @param seq the event's number
   * @return the insert
   */
  public static JobInsert insert(HandlerRegistry.Registered handler, UUID eventId, long seq) {
    return JobInsert.of(new Args(handler.id(), eventId, seq))
        .uniqueKey(handler.handler().name() + ":" + eventId);
  }

  /**
   * The insert of a replay: no unique key, since it repeats a dispatch on purpose.
   *
   * @param handler the handler's name
   * @param eventId the event's id
   * @param seq the event's number
   * @return the insert
   */
  public static JobInsert replay(String handler, UUID eventId, long seq) {
    return JobInsert.of(new Args(HandlerRegistry.idOf(handler), eventId, seq));
  }

  /**
   * Runs one attempt: finds the handler, reads the event and dispatches in one unit of work, and
   * acts on the verdict.
   *
   * @param context the job's context; its attempt is the delivery count
   * @param args the job's args
   * @return the verdict acted on
   * @throws BothyException {@code unavailable} for a nak before the last attempt, so the runtime
   *     retries
   * @throws dev.bothy.platform.jobs.JobEnd a cancel when this process has no such handler or the
   *     event was removed by retention; a snooze of {@link Dispatch#PAUSED_RETRY} while a replay
   *     resets the handler's projection
   */
  public Verdict attempt(JobContext context, Args args) {
    HandlerRegistry.Registered handler =
        registry
            .byId(args.handler())
            .orElseThrow(() -> context.cancel("no bus handler with this id in this process"));
    // The event is read in the handler's unit (D-BD-6): one unit per attempt; usually it was read
    // already, with an earlier job's event (D-BD-12).
    Dispatch.Result result =
        dispatch
            .deliverReading(
                () -> events.read(args.seq(), args.eventId()), handler, context.attempt())
            .orElseThrow(() -> context.cancel("the event is no longer in the log"));
    if (result.paused()) {
      // A replay resets the handler's projection: not an attempt, the job waits and comes again.
      throw context.snooze(Dispatch.PAUSED_RETRY);
    }
    if (result.verdict() == Verdict.NAK) {
      // A failed attempt: the runtime records it and retries after the kind's delay.
      throw BothyException.unavailable(
          "the bus handler " + handler.handler().name() + " failed with a retryable error", null);
    }
    return result.verdict();
  }

  private void work(JobContext context, Args args) {
    attempt(context, args);
  }
}
