package dev.bothy.webhooks.app;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.Ids;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobCompletions;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.platform.jobs.JobKind;
import dev.bothy.platform.telemetry.TelemetryNames;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.EventBodies;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import dev.bothy.webhooks.app.DeliveryPreparer.Prepared;
import dev.bothy.webhooks.domain.DeliveryVerdict;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.RetrySchedule;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import dev.bothy.webhooks.domain.WebhookTargetRefused;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job {@code webhooks.deliver}: one signed {@code POST} of one event to one subscription, and
 * what its answer means (ADR 0018). An asynchronous kind (ADR 0031): no thread waits for the units
 * or the answer; each step goes on from the thread that completed the one before.
 *
 * <ol>
 *   <li>In one unit: load the subscription and check it is still active (and, for an ordered one,
 *       that this job is the delivery it holds), else the job is cancelled without sending; load
 *       the event (one that fell behind retention disables the subscription with {@code gap}); take
 *       an attempt of the subscription's rate limit ({@link RateSlots}), or snooze until the next
 *       window.
 *   <li>Sign and send outside any transaction, through the {@link WebhookTransport} with {@code
 *       webhooks.requestTimeout}. A receiver whose connections all stayed busy for {@code
 *       webhooks.connectionWait} ({@link ReceiverBusy}) got nothing: the job snoozes as long and up
 *       to half as long again, without an attempt (D-WF-9).
 *   <li>Record the attempt and act on the {@link DeliveryVerdict}: a success of an unordered
 *       subscription (or a resend) joins the group commit of the {@link DeliveredRecorder}, which
 *       ends the failure streak and raises the last delivered number; any other outcome has its own
 *       unit under the subscription's row lock: an ordered success moves the chain; {@code 410}
 *       disables with {@code gone}; {@code Retry-After} is a failed attempt retried no sooner than
 *       it asks (and no sooner than the schedule's wait); a failure is retried on the {@link
 *       RetrySchedule} by the job runtime, and the schedule exhausted discards the job (the dead
 *       letter). A streak longer than {@code webhooks.disableAfter} disables with {@code failing}.
 * </ol>
 *
 * <p>Per delivered event of an unordered subscription that is a share of one unit before the
 * request, shared by the deliveries that start together (D-WP-1, D-WB-1), and a share of a group
 * commit after it that also completes the job (D-WP-3, D-WB-3), besides the job runtime's batched
 * fetch and the consumer's round.
 *
 * <p>Nothing here logs a secret, a body or an answer: the answer's excerpt goes to {@code
 * webhook_attempts} only.
 */
public final class DeliveryJob {
  private static final Logger LOG = LoggerFactory.getLogger(DeliveryJob.class);

  /**
   * The settings of a delivery.
   *
   * @param requestTimeout {@code webhooks.requestTimeout}: one request, from connect to the last
   *     byte of the answer
   * @param maxResponseBodyChars {@code webhooks.maxResponseBodyChars}: the answer's excerpt kept
   * @param retryAfterCap {@code webhooks.retryAfterCap}: the longest {@code Retry-After} honoured
   * @param disableAfter {@code webhooks.disableAfter}: the failure streak that disables
   * @param pageSize {@code consumer.batchSize}: events per read of an ordered chain
   * @param rateLimitClaim {@code webhooks.rateLimitClaim}: attempts of a rate window this process
   *     claims at once
   */
  public record Settings(
      Duration requestTimeout,
      int maxResponseBodyChars,
      Duration retryAfterCap,
      Duration disableAfter,
      int pageSize,
      int rateLimitClaim) {
    /** Checks the fields. */
    public Settings {
      Objects.requireNonNull(requestTimeout, "requestTimeout");
      Objects.requireNonNull(retryAfterCap, "retryAfterCap");
      Objects.requireNonNull(disableAfter, "disableAfter");
    }
  }

  /** Thrown to fail an attempt; its message is the error kind only, never an answer or a URL. */
  static final class DeliveryFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeliveryFailed(String errorKind) {
      super(errorKind, null, false, false);
    }
  }

  private final UnitOfWork unitOfWork;
  private final SubscriptionRepository subscriptions;
  private final AttemptRepository attempts;
  private final OrderedChain chain;
  private final EventBodies bodies;
  private final WebhookTransport transport;
  private final NetworkPolicy policy;
  private final DeliveryMetrics metrics;
  private final Clock clock;
  private final Settings settings;
  private final DeliveryPreparer preparer;
  private final DeliveredRecorder delivered;

  /**
   * Creates the job's work.
   *
   * @param unitOfWork the unit of work
   * @param subscriptions the subscriptions' store
   * @param attempts the attempts' store
   * @param log the event log
   * @param chain moves ordered subscriptions
   * @param bodies renders the event as the API does
   * @param transport sends the request
   * @param policy the network rules, checked again at every attempt
   * @param metrics where attempts are counted
   * @param clock the clock
   * @param settings the settings
   * @param completions completes the jobs of delivered attempts in the unit that records them
   */
  public DeliveryJob(
      UnitOfWork unitOfWork,
      SubscriptionRepository subscriptions,
      AttemptRepository attempts,
      EventLog log,
      OrderedChain chain,
      EventBodies bodies,
      WebhookTransport transport,
      NetworkPolicy policy,
      DeliveryMetrics metrics,
      Clock clock,
      Settings settings,
      JobCompletions completions) {
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
    this.attempts = Objects.requireNonNull(attempts, "attempts");
    this.chain = Objects.requireNonNull(chain, "chain");
    this.bodies = Objects.requireNonNull(bodies, "bodies");
    this.transport = Objects.requireNonNull(transport, "transport");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.preparer =
        new DeliveryPreparer(
            unitOfWork,
            subscriptions,
            Objects.requireNonNull(log, "log"),
            new RateSlots(unitOfWork, subscriptions, settings.rateLimitClaim()),
            clock);
    this.delivered = new DeliveredRecorder(unitOfWork, subscriptions, attempts, clock, completions);
  }

  /**
   * The job kind: queue {@code webhooks}, attempts and delays of the {@link RetrySchedule}, and a
   * timeout of {@code webhooks.requestTimeout} plus {@code jobTimeoutMargin} for the reads and
   * writes around the request.
   *
   * @param schedule the retry schedule
   * @param jobTimeoutMargin what the job may take beyond its request
   * @return the kind
   */
  public JobKind<DeliverArgs> kind(RetrySchedule schedule, Duration jobTimeoutMargin) {
    return JobKind.asyncBuilder(DeliveryJobs.KIND, DeliverArgs.class, this::start)
        .queue(DeliveryJobs.QUEUE)
        .maxAttempts(schedule.maxAttempts())
        .retryDelays((failed, jitter) -> schedule.delayAfter(failed, jitter).orElse(Duration.ZERO))
        .timeout(settings.requestTimeout().plus(jobTimeoutMargin))
        .build();
  }

  /**
   * Works one delivery to its end while the calling thread waits: {@link #start}, with what blocks
   * run at once by the thread that reaches it. For tests and tools; the job runtime starts the work
   * instead.
   *
   * @param context the job's context
   * @param args the subscription and the event's number
   * @throws RuntimeException how the attempt ended other than by success: a {@link
   *     dev.bothy.platform.jobs.JobEnd} or the failure
   */
  void work(JobContext context, DeliverArgs args) {
    try {
      start(context, args, Runnable::run).toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error x) {
        throw x;
      }
      throw e;
    }
  }

  /**
   * Starts one delivery and returns at once (ADR 0031): the unit before the request is the
   * preparer's, the request the transport's, a success's unit the recorder's; only what needs a
   * unit of its own (a failure, an ordered success, a gap) or a host lookup runs on {@code
   * blocking}.
   *
   * @param context the job's context
   * @param args the subscription and the event's number
   * @param blocking the {@code webhooks} queue's worker threads
   * @return completes when the attempt is recorded: normally for a success, else with the {@link
   *     dev.bothy.platform.jobs.JobEnd} or failure that ends the attempt
   */
  CompletionStage<Void> start(JobContext context, DeliverArgs args, Executor blocking) {
    // One unit before the request, shared with the deliveries that start together: the
    // subscription, the event and a rate slot (D-WP-1, D-WB-1).
    Cancelled cancelled = new Cancelled();
    CompletableFuture<Void> attempt =
        preparer
            .prepareAsync(args)
            .thenCompose(prepared -> afterPrepare(context, args, prepared, blocking, cancelled));
    // The runtime cancels the attempt at its timeout or a stop: the request is dropped and an
    // answer that comes later is not recorded; the job's outcome is the runtime's.
    attempt.whenComplete(
        (done, thrown) -> {
          if (attempt.isCancelled()) {
            cancelled.cancel();
          }
        });
    return attempt;
  }

  /** Whether the runtime cancelled an attempt, and the request to drop when it does. */
  private static final class Cancelled {
    private volatile boolean cancelled;
    private volatile CompletableFuture<SendResult> sending;

    void cancel() {
      cancelled = true;
      dropRequest();
    }

    boolean isCancelled() {
      return cancelled;
    }

    void sending(CompletableFuture<SendResult> request) {
      sending = request;
      if (cancelled) {
        dropRequest();
      }
    }

    private void dropRequest() {
      CompletableFuture<SendResult> request = sending;
      if (request != null) {
        request.cancel(true);
      }
    }
  }

  private CompletableFuture<Void> afterPrepare(
      JobContext context,
      DeliverArgs args,
      Prepared prepared,
      Executor blocking,
      Cancelled cancelled) {
    if (cancelled.isCancelled()) {
      return CompletableFuture.failedFuture(new CancellationException("the attempt was cancelled"));
    }
    if (prepared instanceof Prepared.EventGone) {
      // A gap disables the subscription in a unit: never on the preparing thread.
      return CompletableFuture.runAsync(() -> gone(context, args), blocking);
    }
    if (prepared instanceof Prepared.Cancel cancel) {
      return CompletableFuture.failedFuture(context.cancel(cancel.reason()));
    }
    if (prepared instanceof Prepared.Wait wait) {
      return CompletableFuture.failedFuture(
          context.snooze(Duration.between(clock.now(), wait.until()).abs()));
    }
    Prepared.Send go = (Prepared.Send) prepared;
    Instant attemptedAt = clock.now();
    OutgoingRequest request;
    try {
      request = request(go.subscription(), go.event(), attemptedAt);
    } catch (WebhookTargetRefused refused) {
      // Checked again at every attempt: DNS answers and the configuration change.
      return recorded(
          context,
          args,
          go,
          attemptedAt,
          Optional.empty(),
          new DeliveryVerdict.Failed(refused.code()),
          blocking);
    }
    CompletableFuture<SendResult> sending = transport.sendAsync(request, blocking);
    cancelled.sending(sending);
    return sending
        .handle(
            (sent, thrown) -> {
              if (cancelled.isCancelled()) {
                return CompletableFuture.<Void>failedFuture(
                    new CancellationException("the attempt was cancelled"));
              }
              if (thrown == null) {
                DeliveryVerdict verdict =
                    DeliveryVerdict.classify(sent, clock.now(), settings.retryAfterCap());
                return recorded(
                    context, args, go, attemptedAt, Optional.of(sent), verdict, blocking);
              }
              Throwable cause = unwrap(thrown);
              if (cause instanceof ReceiverBusy busy) {
                return CompletableFuture.<Void>failedFuture(snoozeBusy(context, busy));
              }
              return CompletableFuture.<Void>failedFuture(cause);
            })
        .thenCompose(recording -> recording);
  }

  /** Ends a job whose event fell behind retention, disabling the subscription; always throws. */
  private void gone(JobContext context, DeliverArgs args) {
    if (!args.resend()) {
      unitOfWork.run(
          () -> {
            subscriptions
                .lock(args.subscriptionId())
                .filter(s -> DeliveryPreparer.inFlight(s, args))
                .ifPresent(s -> disable(s.view(), DisabledReason.GAP));
            return null;
          });
    }
    throw context.cancel("event fell behind retention");
  }

  /**
   * A receiver whose connections all stayed busy got nothing: not an attempt and no failure, and
   * the slot goes to other receivers while this one's connections are taken (D-WF-9).
   */
  private JobEnd snoozeBusy(JobContext context, ReceiverBusy busy) {
    metrics.receiverBusy();
    // Jittered, so the deliveries that waited together do not come back together.
    long waited = busy.waited().toMillis();
    return context.snooze(
        Duration.ofMillis(waited + ThreadLocalRandom.current().nextLong(waited / 2 + 1)));
  }

  /** Counts the attempt and records it: a plain success joins the recorder's group commit. */
  private CompletableFuture<Void> recorded(
      JobContext context,
      DeliverArgs args,
      Prepared.Send go,
      Instant attemptedAt,
      Optional<SendResult> result,
      DeliveryVerdict verdict,
      Executor blocking) {
    Event event = go.event();
    metrics.attempt(verdict);
    if (verdict instanceof DeliveryVerdict.Delivered) {
      metrics.deliveredAfter(Duration.between(event.occurredAt(), clock.now()));
      if (!go.subscription().view().ordered() || args.resend()) {
        // Nothing moves a chain: the success joins the next group commit (D-WP-3).
        return delivered
            .recordAsync(attempt(context, args, event, attemptedAt, result, verdict), context)
            .thenApply(written -> null);
      }
    }
    return CompletableFuture.runAsync(
        () -> finish(context, args, event, attemptedAt, result, verdict), blocking);
  }

  /** Records an attempt other than a plain success in a unit of its own and ends the job so. */
  private void finish(
      JobContext context,
      DeliverArgs args,
      Event event,
      Instant attemptedAt,
      Optional<SendResult> result,
      DeliveryVerdict verdict) {
    boolean disabled =
        unitOfWork.run(() -> record(context, args, event, attemptedAt, result, verdict));
    if (verdict instanceof DeliveryVerdict.Delivered) {
      return;
    }
    if (verdict instanceof DeliveryVerdict.Gone) {
      throw context.cancel("receiver answered 410 Gone");
    }
    boolean lastAttempt = context.attempt() >= context.maxAttempts();
    if (disabled && !lastAttempt) {
      throw context.cancel("subscription disabled as failing");
    }
    if (verdict instanceof DeliveryVerdict.RetryAfter r) {
      // An attempt of the schedule like any failure (D-RA-1): a receiver that keeps answering
      // Retry-After, or asks for 0 s, gets the schedule's attempts and waits, not more.
      throw context.retryNoSoonerThan(r.delay(), "retry_after");
    }
    String kind =
        verdict instanceof DeliveryVerdict.Failed f ? f.errorKind() : DeliveryVerdict.STATUS;
    throw new DeliveryFailed(kind);
  }

  private static Throwable unwrap(Throwable thrown) {
    Throwable cause = thrown;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** The signed request of one attempt; refuses a target the network rules refuse. */
  private OutgoingRequest request(StoredSubscription stored, Event event, Instant now) {
    URI target = URI.create(stored.view().url());
    policy.checkTarget(target);
    byte[] body = bodies.render(event);
    List<WebhookSecret> secrets =
        stored.signingSecrets(now).stream().map(WebhookSecret::parse).toList();
    String id = event.id().toString();
    long timestamp = now.getEpochSecond();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", "application/json");
    headers.put("webhook-id", id);
    headers.put("webhook-timestamp", Long.toString(timestamp));
    headers.put("webhook-signature", WebhookSignature.sign(id, timestamp, body, secrets));
    return new OutgoingRequest(target, headers, body, settings.requestTimeout());
  }

  /**
   * Records the attempt and applies the verdict to the subscription, under its row lock.
   *
   * @return whether the subscription is disabled as failing by this attempt
   */
  private boolean record(
      JobContext context,
      DeliverArgs args,
      Event event,
      Instant attemptedAt,
      Optional<SendResult> result,
      DeliveryVerdict verdict) {
    Optional<StoredSubscription> locked = subscriptions.lock(args.subscriptionId());
    if (locked.isEmpty()) {
      return false;
    }
    StoredSubscription s = locked.get();
    Instant now = clock.now();
    attempts.insert(attempt(context, args, event, attemptedAt, result, verdict));
    boolean chained = s.view().ordered() && !args.resend() && DeliveryPreparer.inFlight(s, args);
    if (verdict instanceof DeliveryVerdict.Delivered) {
      subscriptions.delivered(s.view().id(), args.seq(), now);
      if (chained) {
        chain.advance(s, s.generation(), args.seq());
      }
      return false;
    }
    if (verdict instanceof DeliveryVerdict.Gone) {
      if (s.view().state() == SubscriptionState.ACTIVE) {
        disable(s.view(), DisabledReason.GONE);
      }
      return false;
    }
    Instant since = subscriptions.failed(s.view().id(), now);
    boolean streakTooLong = Duration.between(since, now).compareTo(settings.disableAfter()) >= 0;
    // An ordered subscription whose held delivery is dead has nothing left to move it: it is
    // disabled at once, so the operator sees it and enables it again (ADR 0018).
    boolean orderedExhausted = chained && context.attempt() >= context.maxAttempts();
    if (s.view().state() == SubscriptionState.ACTIVE && (streakTooLong || orderedExhausted)) {
      disable(s.view(), DisabledReason.FAILING);
      return true;
    }
    return false;
  }

  /** The attempt's row: an answer came when the transport has no error kind. */
  private Attempt attempt(
      JobContext context,
      DeliverArgs args,
      Event event,
      Instant attemptedAt,
      Optional<SendResult> result,
      DeliveryVerdict verdict) {
    // A refused target sent nothing, and a transport error has no answer.
    Optional<SendResult> answer = result.filter(r -> r.errorKind().isEmpty());
    return new Attempt(
        Ids.newId(),
        args.subscriptionId(),
        args.seq(),
        event.id(),
        context.attempt(),
        attemptedAt,
        // A transport error (a timeout, a refused connection) took time too; only a refused
        // target, which sent nothing, has none.
        result.map(SendResult::elapsed).orElse(Duration.ZERO),
        outcome(verdict),
        answer.map(r -> OptionalInt.of(r.status())).orElse(OptionalInt.empty()),
        answer.map(r -> cut(r.bodyExcerpt())),
        verdict instanceof DeliveryVerdict.Failed f
            ? Optional.of(f.errorKind())
            : Optional.empty());
  }

  private void disable(Subscription s, DisabledReason reason) {
    subscriptions.disable(s.id(), reason, clock.now());
    unitOfWork.afterCommit(
        () ->
            LOG.warn(
                "webhook subscription disabled: "
                    + TelemetryNames.WEBHOOK_SUBSCRIPTION_ID
                    + "={} reason={}",
                s.id(),
                reason.code()));
  }

  private static DeliveryOutcome outcome(DeliveryVerdict verdict) {
    if (verdict instanceof DeliveryVerdict.Delivered) {
      return DeliveryOutcome.DELIVERED;
    }
    if (verdict instanceof DeliveryVerdict.Gone) {
      return DeliveryOutcome.GONE;
    }
    if (verdict instanceof DeliveryVerdict.RetryAfter) {
      return DeliveryOutcome.RETRY_AFTER;
    }
    return DeliveryOutcome.FAILED;
  }

  private String cut(String text) {
    String t = text == null ? "" : text;
    int max = settings.maxResponseBodyChars();
    return t.length() <= max ? t : t.substring(0, max);
  }
}
