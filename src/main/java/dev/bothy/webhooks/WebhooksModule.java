package dev.bothy.webhooks;

import dev.bothy.kernel.Clock;
import dev.bothy.kernel.txn.UnitOfWork;
import dev.bothy.platform.jobs.JobsModule;
import dev.bothy.platform.lifecycle.Lifecycle;
import dev.bothy.platform.lifecycle.StopPhase;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.SyncModule;
import dev.bothy.webhooks.adapters.http.ConnectionSettings;
import dev.bothy.webhooks.adapters.http.PinnedHttpTransport;
import dev.bothy.webhooks.adapters.postgres.JooqAttemptRepository;
import dev.bothy.webhooks.adapters.postgres.JooqSubscriptionRepository;
import dev.bothy.webhooks.app.AttemptRetentionJob;
import dev.bothy.webhooks.app.DeliveryJob;
import dev.bothy.webhooks.app.DeliveryMetrics;
import dev.bothy.webhooks.app.HostResolver;
import dev.bothy.webhooks.app.OrderedChain;
import dev.bothy.webhooks.app.SubscriptionService;
import dev.bothy.webhooks.app.TargetGuard;
import dev.bothy.webhooks.app.WebhookTransport;
import dev.bothy.webhooks.app.WebhooksConsumer;
import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.RetrySchedule;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The wiring entry of outgoing webhooks: builds the stores, the network rules and the transport,
 * registers the job kinds {@code webhooks.deliver} and {@code webhooks.attempt_retention} (with its
 * periodic job) in every role, the worker consumer {@code webhooks} with {@link #registerConsumer},
 * and offers the operator's verbs for the HTTP routes ({@link #subscriptions()}).
 *
 * <pre>{@code
 * WebhooksModule webhooks = new WebhooksModule(settings, unitOfWork, jobs, sync, bodies, metrics, clock);
 * webhooks.registerConsumer(sync); // every role: its lag gauges; worker and all run it
 * webhooks.stopWith(lifecycle);    // every role: the transport closes after the job workers
 * webhooks.subscriptions();        // api and all: the routes
 * }</pre>
 */
public final class WebhooksModule {
  /** Default of {@code webhooks.maxConnections}. */
  public static final int DEFAULT_MAX_CONNECTIONS = ConnectionSettings.DEFAULT_MAX_CONNECTIONS;

  /**
   * Default of {@code webhooks.maxConnectionsPerTarget}: the requests one receiver gets at once.
   */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_TARGET =
      ConnectionSettings.DEFAULT_MAX_CONNECTIONS_PER_TARGET;

  /**
   * Default of {@code webhooks.connectionWait}: how long a delivery waits for a free connection to
   * its receiver before it is snoozed without an attempt.
   */
  public static final Duration DEFAULT_CONNECTION_WAIT = ConnectionSettings.DEFAULT_CONNECTION_WAIT;

  /**
   * Everything the module reads from the configuration; each field names its key.
   *
   * @param allowedNetworks {@code webhooks.allowedNetworks}: CIDR blocks allowed although private
   * @param allowPlainHttp {@code webhooks.allowPlainHttp}: whether {@code http} targets are allowed
   * @param requestTimeout {@code webhooks.requestTimeout}
   * @param jobTimeoutMargin {@code webhooks.jobTimeoutMargin}: the job's timeout beyond the request
   * @param maxResponseBodyChars {@code webhooks.maxResponseBodyChars}
   * @param retryAfterCap {@code webhooks.retryAfterCap}
   * @param disableAfter {@code webhooks.disableAfter}
   * @param attemptRetention {@code webhooks.attemptRetention}
   * @param attemptRetentionInterval {@code webhooks.attemptRetentionInterval}
   * @param defaultRateLimit {@code webhooks.defaultRateLimit}
   * @param maxRateLimit {@code webhooks.maxRateLimit}
   * @param rateLimitClaim {@code webhooks.rateLimitClaim}: attempts of a rate window claimed at
   *     once
   * @param maxUrlLength {@code webhooks.maxUrlLength}
   * @param maxEventTypes {@code webhooks.maxEventTypes}
   * @param secretRotationWindow {@code webhooks.secretRotationWindow}
   * @param maxConnections {@code webhooks.maxConnections}: open connections to all receivers
   * @param maxConnectionsPerTarget {@code webhooks.maxConnectionsPerTarget}: open connections, and
   *     so requests at once, to one receiver
   * @param connectionWait {@code webhooks.connectionWait}: the longest wait for a free connection
   *     to a receiver, shorter than {@code requestTimeout}
   * @param pageSize {@code consumer.batchSize}: events per read of a chain or a recovery
   * @param cleanerBatchSize {@code jobs.cleanerBatchSize}: attempts per delete
   */
  public record Settings(
      List<String> allowedNetworks,
      boolean allowPlainHttp,
      Duration requestTimeout,
      Duration jobTimeoutMargin,
      int maxResponseBodyChars,
      Duration retryAfterCap,
      Duration disableAfter,
      Duration attemptRetention,
      Duration attemptRetentionInterval,
      int defaultRateLimit,
      int maxRateLimit,
      int rateLimitClaim,
      int maxUrlLength,
      int maxEventTypes,
      Duration secretRotationWindow,
      int maxConnections,
      int maxConnectionsPerTarget,
      Duration connectionWait,
      int pageSize,
      int cleanerBatchSize) {
    /**
     * Checks that every field is present and the connection limits fit together, and copies the
     * list.
     *
     * @throws IllegalArgumentException when {@code maxConnectionsPerTarget} is below 1 or above
     *     {@code maxConnections}, or {@code connectionWait} is not shorter than {@code
     *     requestTimeout}
     */
    public Settings {
      if (maxConnectionsPerTarget < 1 || maxConnections < maxConnectionsPerTarget) {
        throw new IllegalArgumentException(
            "webhooks.maxConnectionsPerTarget must be at least 1 and at most"
                + " webhooks.maxConnections");
      }
      allowedNetworks = List.copyOf(allowedNetworks);
      Objects.requireNonNull(requestTimeout, "requestTimeout");
      Objects.requireNonNull(jobTimeoutMargin, "jobTimeoutMargin");
      Objects.requireNonNull(retryAfterCap, "retryAfterCap");
      Objects.requireNonNull(disableAfter, "disableAfter");
      Objects.requireNonNull(attemptRetention, "attemptRetention");
      Objects.requireNonNull(attemptRetentionInterval, "attemptRetentionInterval");
      Objects.requireNonNull(secretRotationWindow, "secretRotationWindow");
      Objects.requireNonNull(connectionWait, "connectionWait");
      if (connectionWait.compareTo(requestTimeout) >= 0) {
        throw new IllegalArgumentException(
            "webhooks.connectionWait must be shorter than webhooks.requestTimeout");
      }
    }
  }

  private final UnitOfWork unitOfWork;
  private final JooqSubscriptionRepository subscriptionStore = new JooqSubscriptionRepository();
  private final WebhooksConsumer consumer;
  private final SubscriptionService subscriptions;
  private final NetworkPolicy policy;
  private final WebhookTransport sender;
  private final Duration closeBudget;

  /**
   * Builds the module with the system's DNS and the pinned HTTP transport.
   *
   * @param settings the module's settings
   * @param unitOfWork the unit of work
   * @param jobs the job module; the kinds are registered in it
   * @param sync the event log module
   * @param bodies renders an event as the API does
   * @param metrics where deliveries are counted
   * @param clock the process's clock
   */
  public WebhooksModule(
      Settings settings,
      UnitOfWork unitOfWork,
      JobsModule jobs,
      SyncModule sync,
      EventBodies bodies,
      DeliveryMetrics metrics,
      Clock clock) {
    this(
        settings,
        unitOfWork,
        jobs,
        sync,
        bodies,
        metrics,
        clock,
        HostResolver.system(),
        policy ->
            new PinnedHttpTransport(
                policy,
                HostResolver.system(),
                settings.maxResponseBodyChars(),
                ConnectionSettings.limits(
                    settings.maxConnections(),
                    settings.maxConnectionsPerTarget(),
                    settings.requestTimeout(),
                    settings.connectionWait())));
  }

  /**
   * Builds the module with a given resolver and transport: for tests that answer DNS themselves or
   * receive on loopback.
   *
   * @param settings the module's settings
   * @param unitOfWork the unit of work
   * @param jobs the job module; the kinds are registered in it
   * @param sync the event log module
   * @param bodies renders an event as the API does
   * @param metrics where deliveries are counted
   * @param clock the process's clock
   * @param resolver answers DNS for the creation-time check of a target
   * @param transport makes the transport from the network rules
   */
  public WebhooksModule(
      Settings settings,
      UnitOfWork unitOfWork,
      JobsModule jobs,
      SyncModule sync,
      EventBodies bodies,
      DeliveryMetrics metrics,
      Clock clock,
      HostResolver resolver,
      Function<NetworkPolicy, WebhookTransport> transport) {
    Objects.requireNonNull(settings, "settings");
    this.unitOfWork = Objects.requireNonNull(unitOfWork, "unitOfWork");
    this.policy =
        new NetworkPolicy(
            settings.allowedNetworks().stream().map(Cidr::parse).toList(),
            settings.allowPlainHttp());
    this.sender = Objects.requireNonNull(transport.apply(policy), "transport");
    this.closeBudget = settings.requestTimeout();
    JooqAttemptRepository attemptStore = new JooqAttemptRepository();
    OrderedChain chain =
        new OrderedChain(
            subscriptionStore, sync.eventLog(), jobs.inserter(), clock, settings.pageSize());
    DeliveryJob delivery =
        new DeliveryJob(
            unitOfWork,
            subscriptionStore,
            attemptStore,
            sync.eventLog(),
            chain,
            bodies,
            sender,
            policy,
            metrics,
            clock,
            new DeliveryJob.Settings(
                settings.requestTimeout(),
                settings.maxResponseBodyChars(),
                settings.retryAfterCap(),
                settings.disableAfter(),
                settings.pageSize(),
                settings.rateLimitClaim()),
            jobs.completions());
    jobs.register(delivery.kind(RetrySchedule.standard(), settings.jobTimeoutMargin()));
    jobs.register(
        AttemptRetentionJob.kind(
            unitOfWork,
            attemptStore,
            clock,
            settings.attemptRetention(),
            settings.cleanerBatchSize()));
    jobs.registerPeriodic(AttemptRetentionJob.periodic(settings.attemptRetentionInterval()));
    this.consumer = new WebhooksConsumer(unitOfWork, subscriptionStore, jobs.inserter(), clock);
    this.subscriptions =
        new SubscriptionService(
            unitOfWork,
            subscriptionStore,
            attemptStore,
            sync.eventLog(),
            sync.eventTypes(),
            jobs.inserter(),
            chain,
            new TargetGuard(policy, resolver),
            clock,
            new SubscriptionService.Settings(
                settings.defaultRateLimit(),
                settings.maxRateLimit(),
                settings.maxUrlLength(),
                settings.maxEventTypes(),
                settings.secretRotationWindow(),
                settings.pageSize()));
  }

  /**
   * Registers the worker consumer {@code webhooks}; in every role (for its lag gauges; {@code
   * worker} and {@code all} run its rounds), before the start.
   *
   * @param sync the event log module
   */
  public void registerConsumer(SyncModule sync) {
    sync.registerConsumer(ConsumerName.WEBHOOKS, consumer);
  }

  /**
   * Adds the stop step {@code webhooks-transport} that closes the transport (its connection pool
   * and its deadline timer) in {@link StopPhase#POOL}, so after the job workers of {@link
   * StopPhase#JOBS}, which may still be sending, have stopped. In every role, since every role
   * builds the transport. Closing drops connections at once; the step's budget is {@code
   * webhooks.requestTimeout}.
   *
   * @param lifecycle the process lifecycle
   */
  public void stopWith(Lifecycle lifecycle) {
    lifecycle.onStop(StopPhase.POOL, "webhooks-transport", closeBudget, sender::close);
  }

  /**
   * Counts the subscriptions by state, for the gauge {@code bothy_webhooks_subscriptions}: one
   * query in its own unit.
   *
   * @return counts keyed by {@code active} or the disabled reason's code ({@code gap}, {@code
   *     failing}, {@code gone}, {@code manual}); a key without subscriptions is absent
   */
  public Map<String, Long> stateCounts() {
    return unitOfWork.run(subscriptionStore::countByStateAndReason);
  }

  /**
   * Returns the operator's verbs, for the HTTP routes.
   *
   * @return the subscriptions' verbs
   */
  public WebhookSubscriptions subscriptions() {
    return subscriptions;
  }
}
