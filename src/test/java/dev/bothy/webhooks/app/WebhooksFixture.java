package dev.bothy.webhooks.app;

import dev.bothy.kernel.SettableClock;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.platform.jobs.JobRegistry;
import dev.bothy.platform.jobs.runtime.JobCompletionService;
import dev.bothy.platform.jobs.runtime.JobInserterService;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.adapters.postgres.JooqConsumerCursorRepository;
import dev.bothy.sync.app.ConsumerService;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.webhooks.adapters.http.ConnectionSettings;
import dev.bothy.webhooks.adapters.http.PinnedHttpTransport;
import dev.bothy.webhooks.adapters.postgres.JooqAttemptRepository;
import dev.bothy.webhooks.adapters.postgres.JooqSubscriptionRepository;
import dev.bothy.webhooks.domain.Cidr;
import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.RetrySchedule;
import dev.bothy.wire.JacksonPayloadCodec;
import io.dropwizard.jackson.Jackson;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One worker process of the webhooks tests: the event log, the job inserter with {@code
 * webhooks.deliver} registered, the consumer service with the webhooks handler, the subscription
 * verbs and the delivery job over a transport the test gives. Jobs are not worked by a runtime: a
 * test takes a queued job with {@link #dueJobs} and runs its work with {@link #work}, so every
 * attempt happens when the test says, on a settable clock.
 */
final class WebhooksFixture implements AutoCloseable {
  static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

  final SettableClock clock = new SettableClock(START);
  final DataSource pool;
  final EventLogFixture log;
  final JobInserterService inserter;
  final ConsumerService consumers;
  final JooqSubscriptionRepository subscriptionStore = new JooqSubscriptionRepository();
  final JooqAttemptRepository attemptStore = new JooqAttemptRepository();
  final SubscriptionService subscriptions;
  final DeliveryJob delivery;
  final OrderedChain chain;

  private final WebhookTransport transport;

  /**
   * The real transport, allowed onto loopback ({@code webhooks.allowedNetworks: [127.0.0.0/8]},
   * plain http), as the tests' receivers listen on 127.0.0.1.
   */
  static WebhookTransport pinnedTransport() {
    return new PinnedHttpTransport(
        loopbackPolicy(),
        HostResolver.system(),
        16,
        ConnectionSettings.defaults(Duration.ofSeconds(5)));
  }

  private static NetworkPolicy loopbackPolicy() {
    return new NetworkPolicy(List.of(Cidr.parse("127.0.0.0/8")), true);
  }

  @Override
  public void close() {
    if (transport instanceof PinnedHttpTransport pinned) {
      pinned.close();
    }
  }

  WebhooksFixture(DataSource pool, WebhookTransport transport, Duration disableAfter) {
    this.pool = pool;
    this.transport = transport;
    log = new EventLogFixture(pool, clock, 64 * 1024, (n, nanos) -> {}, 2);
    JobRegistry registry = new JobRegistry(3, Duration.ofSeconds(30), Duration.ofMinutes(10));
    inserter =
        new JobInserterService(
            log.uow,
            log.hooks,
            registry,
            new JacksonPayloadCodec(Jackson.newObjectMapper()),
            clock);
    NetworkPolicy policy = loopbackPolicy();
    chain = new OrderedChain(subscriptionStore, log.log, inserter, clock, 2);
    delivery =
        new DeliveryJob(
            log.uow,
            subscriptionStore,
            attemptStore,
            log.log,
            chain,
            event -> ("{\"seq\":" + event.seq() + "}").getBytes(StandardCharsets.UTF_8),
            transport,
            policy,
            DeliveryMetrics.NONE,
            clock,
            new DeliveryJob.Settings(
                Duration.ofSeconds(5), 16, Duration.ofHours(1), disableAfter, 2, 10),
            // No runtime works these jobs (the tests run each attempt), so nothing is completed.
            new JobCompletionService(log.uow, clock));
    registry.register(delivery.kind(RetrySchedule.standard(), Duration.ofSeconds(10)));
    registry.freeze();
    subscriptions =
        new SubscriptionService(
            log.uow,
            subscriptionStore,
            attemptStore,
            log.log,
            dev.bothy.sync.EventTypes.withBuiltIns(),
            inserter,
            chain,
            new TargetGuard(policy, host -> List.of(InetAddress.getByName(host))),
            clock,
            new SubscriptionService.Settings(50, 1000, 2048, 50, Duration.ofHours(24), 2));
    consumers = new ConsumerService(log.uow, new JooqConsumerCursorRepository(), log.events, 100);
    consumers.register(
        ConsumerName.WEBHOOKS, new WebhooksConsumer(log.uow, subscriptionStore, inserter, clock));
    consumers.ensure();
  }

  /** A queued delivery job as the test sees it. */
  record QueuedJob(UUID id, DeliverArgs args, int attempt, int maxAttempts, String state) {}

  /**
   * The delivery jobs not finished, in order of their number.
   *
   * @return the jobs
   */
  List<QueuedJob> dueJobs() throws SQLException {
    return jobs("state IN ('available', 'scheduled', 'retryable')");
  }

  /** Every delivery job, any state. */
  List<QueuedJob> allJobs() throws SQLException {
    return jobs("true");
  }

  private List<QueuedJob> jobs(String where) throws SQLException {
    List<QueuedJob> jobs = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT id, (args->>'subscriptionId')::uuid, (args->>'seq')::bigint,"
                    + " (args->>'generation')::int, (args->>'resend')::boolean, attempt,"
                    + " max_attempts, state FROM jobs WHERE kind = 'webhooks.deliver' AND "
                    + where
                    + " ORDER BY (args->>'seq')::bigint, created_at, id");
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        jobs.add(
            new QueuedJob(
                r.getObject(1, UUID.class),
                new DeliverArgs(
                    r.getObject(2, UUID.class), r.getLong(3), r.getInt(4), r.getBoolean(5)),
                r.getInt(6),
                r.getInt(7),
                r.getString(8)));
      }
    }
    return jobs;
  }

  /**
   * Runs one attempt of a queued job's work, as the runtime would (the attempt counted first).
   *
   * @param job the job
   * @return what the work threw, or null when it returned (a success)
   */
  RuntimeException work(QueuedJob job) {
    JobContext context =
        new JobContext(job.id(), DeliveryJobs.KIND, job.attempt() + 1, job.maxAttempts(), START);
    try {
      delivery.work(context, job.args());
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
