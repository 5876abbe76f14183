package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bothy.kernel.BothyException;
import dev.bothy.kernel.ErrorKind;
import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobEnd;
import dev.bothy.sync.ConsumerName;
import dev.bothy.sync.app.RoundResult;
import dev.bothy.testing.CapturedLog;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.CreatedSubscription;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.DisabledReason;
import dev.bothy.webhooks.NewSubscription;
import dev.bothy.webhooks.Subscription;
import dev.bothy.webhooks.SubscriptionState;
import dev.bothy.webhooks.TargetNotAllowed;
import dev.bothy.webhooks.domain.WebhookSecret;
import dev.bothy.webhooks.domain.WebhookSignature;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The consumer, the delivery job and the subscription verbs on a real database, with a transport
 * the test scripts and a settable clock: every attempt runs when the test says, so retries, the
 * failure streak and ordering are checked step by step.
 */
class WebhookDeliveryTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private static final Duration DISABLE_AFTER = Duration.ofDays(5);

  private LoopbackReceiver transport;
  private String url;
  private WebhooksFixture hooks;
  private CapturedLog captured;
  // The class shares one database: numbers of this test's events start after it.
  private long base;

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM jobs");
      s.execute("DELETE FROM webhook_subscriptions");
      s.execute("DELETE FROM event_consumer_cursors");
    }
    captured = CapturedLog.of(org.slf4j.LoggerFactory.getLogger("dev.bothy"));
    transport = new LoopbackReceiver();
    url = transport.url();
    hooks = new WebhooksFixture(PG.app(), WebhooksFixture.pinnedTransport(), DISABLE_AFTER);
    base = hooks.log.log.head();
  }

  private long seq(long n) {
    return base + n;
  }

  private List<Long> seqs(long... ns) {
    List<Long> out = new ArrayList<>();
    for (long n : ns) {
      out.add(seq(n));
    }
    return out;
  }

  @AfterEach
  void noSecretInAnyLogLine() throws Exception {
    List<String> secrets =
        PgExtension.rows(
            PG.owner(),
            "SELECT secret FROM webhook_subscriptions UNION ALL SELECT previous_secret FROM"
                + " webhook_subscriptions WHERE previous_secret IS NOT NULL");
    for (ILoggingEvent e : captured.events()) {
      for (String secret : secrets) {
        assertThat(e.getFormattedMessage())
            .doesNotContain(secret)
            .doesNotContain(secret.substring(6));
      }
    }
    captured.close();
    transport.close();
    hooks.close();
  }

  private CreatedSubscription create(boolean ordered) {
    return hooks.subscriptions.create(
        new NewSubscription(url, List.of("settings.updated"), ordered, OptionalInt.empty()));
  }

  private void drainConsumer() {
    while (hooks.consumers.round(ConsumerName.WEBHOOKS) != RoundResult.IDLE) {
      // each round commits its jobs and cursor together
    }
  }

  private Subscription show(UUID id) {
    return hooks.subscriptions.find(id).orElseThrow();
  }

  /** Works every due job once, in order of number, and returns what each threw. */
  private List<RuntimeException> workDue() throws SQLException {
    List<RuntimeException> ends = new ArrayList<>();
    for (WebhooksFixture.QueuedJob job : hooks.dueJobs()) {
      ends.add(hooks.work(job));
      finish(job, ends.get(ends.size() - 1));
    }
    return ends;
  }

  /** Records the outcome in the job row as the runtime would, so due jobs reflect it. */
  private void finish(WebhooksFixture.QueuedJob job, RuntimeException end) throws SQLException {
    String set;
    if (end == null) {
      set = "state = 'completed', finalized_at = now(), attempt = attempt + 1";
    } else if (end instanceof JobEnd e && e.verb() == JobEnd.Verb.SNOOZE) {
      set = "state = 'scheduled'";
    } else if (end instanceof JobEnd e && e.verb() == JobEnd.Verb.CANCEL) {
      set = "state = 'cancelled', finalized_at = now(), attempt = attempt + 1";
    } else if (job.attempt() + 1 >= job.maxAttempts()) {
      set = "state = 'discarded', finalized_at = now(), attempt = attempt + 1";
    } else {
      set = "state = 'retryable', attempt = attempt + 1";
    }
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute("UPDATE jobs SET " + set + " WHERE id = '" + job.id() + "'");
    }
  }

  @Test
  void each_event_becomes_one_job_per_matching_active_subscription() throws SQLException {
    CreatedSubscription active = create(false);
    CreatedSubscription disabled = create(false);
    hooks.subscriptions.disable(disabled.subscription().id());
    UUID other = Ids.newId();
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO webhook_subscriptions (id, url, event_types, secret, ordered, rate_limit,"
              + " state, created_at, updated_at) VALUES ('"
              + other
              + "', 'https://example.com/other', ARRAY['other.type'], 'whsec_abc', false, 5,"
              + " 'active', now(), now())");
    }
    hooks.log.append(Ids.newId(), 3);
    drainConsumer();
    List<WebhooksFixture.QueuedJob> jobs = hooks.dueJobs();
    assertThat(jobs)
        .extracting(j -> j.args().subscriptionId())
        .containsOnly(active.subscription().id());
    assertThat(jobs).extracting(j -> j.args().seq()).containsExactlyElementsOf(seqs(1, 2, 3));
  }

  @Test
  void two_racing_consumer_rounds_queue_exactly_one_job_per_subscription_and_event()
      throws Exception {
    CreatedSubscription a = create(false);
    CreatedSubscription b = create(false);
    try (var poolA = PG.pool("bothy_app", 4);
        var poolB = PG.pool("bothy_app", 4)) {
      WebhooksFixture workerA =
          new WebhooksFixture(poolA, WebhooksFixture.pinnedTransport(), DISABLE_AFTER);
      WebhooksFixture workerB =
          new WebhooksFixture(poolB, WebhooksFixture.pinnedTransport(), DISABLE_AFTER);
      ExecutorService threads = Executors.newFixedThreadPool(3);
      try {
        Future<?> writer =
            threads.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    hooks.log.append(Ids.newId(), 1 + i % 3);
                  }
                  return null;
                });
        Callable<Void> rounds =
            () -> {
              for (int i = 0; i < 200 && !(writer.isDone() && idle(workerA)); i++) {
                workerA.consumers.round(ConsumerName.WEBHOOKS);
              }
              return null;
            };
        Callable<Void> roundsB =
            () -> {
              for (int i = 0; i < 200 && !(writer.isDone() && idle(workerB)); i++) {
                workerB.consumers.round(ConsumerName.WEBHOOKS);
              }
              return null;
            };
        Future<Void> ra = threads.submit(rounds);
        Future<Void> rb = threads.submit(roundsB);
        writer.get(60, TimeUnit.SECONDS);
        ra.get(60, TimeUnit.SECONDS);
        rb.get(60, TimeUnit.SECONDS);
      } finally {
        threads.shutdownNow();
        workerA.close();
        workerB.close();
      }
      drainConsumer();
    }
    long head = hooks.log.log.head() - base;
    Map<String, Integer> perKey = new HashMap<>();
    for (WebhooksFixture.QueuedJob j : hooks.allJobs()) {
      perKey.merge(j.args().subscriptionId() + ":" + j.args().seq(), 1, Integer::sum);
    }
    assertThat(head).isEqualTo(39);
    for (UUID id : List.of(a.subscription().id(), b.subscription().id())) {
      for (long n = 1; n <= head; n++) {
        assertThat(perKey.get(id + ":" + seq(n))).as(id + ":" + seq(n)).isEqualTo(1);
      }
    }
    assertThat(perKey).hasSize((int) (2 * head));
  }

  private static boolean idle(WebhooksFixture worker) {
    return worker.consumers.round(ConsumerName.WEBHOOKS) == RoundResult.IDLE;
  }

  @Test
  void a_delivery_is_signed_with_the_secret_and_a_success_is_recorded() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    assertThat(workDue()).containsExactly((RuntimeException) null);

    assertThat(transport.sent).hasSize(1);
    var request = transport.sent.get(0);
    var event = ((dev.bothy.sync.ReadResult.Page) hooks.log.log.readAfter(base, 1)).events().get(0);
    assertThat(request.headers())
        .containsEntry("webhook-id", event.id().toString())
        .containsEntry("webhook-timestamp", Long.toString(hooks.clock.now().getEpochSecond()))
        .containsEntry("content-type", "application/json");
    assertThat(
            WebhookSignature.verify(
                event.id().toString(),
                hooks.clock.now().getEpochSecond(),
                request.body(),
                request.headers().get("webhook-signature"),
                WebhookSecret.parse(sub.secret())))
        .isTrue();
    Subscription after = show(sub.subscription().id());
    assertThat(after.lastDeliveredSeq()).isEqualTo(seq(1));
    assertThat(after.failingSince()).isEmpty();
    List<Attempt> attempts =
        hooks.subscriptions.attempts(sub.subscription().id(), OptionalLong.empty(), 10);
    assertThat(attempts).hasSize(1);
    assertThat(attempts.get(0).outcome()).isEqualTo(DeliveryOutcome.DELIVERED);
    assertThat(attempts.get(0).responseStatus()).hasValue(204);
  }

  @Test
  void an_answer_with_u0000_is_recorded_with_the_replacement_character() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    // PostgreSQL's text cannot hold U+0000: the attempt was refused with SQLSTATE 22021, so a
    // 2xx was sent again and a 410 never disabled.
    transport.thenBody(200, "ok\u0000 Alex");

    assertThat(workDue()).containsExactly((RuntimeException) null);

    assertThat(show(sub.subscription().id()).lastDeliveredSeq()).isEqualTo(seq(1));
    assertThat(hooks.subscriptions.attempts(sub.subscription().id(), OptionalLong.of(seq(1)), 10))
        .singleElement()
        .satisfies(a -> assertThat(a.responseBody()).hasValue("ok\uFFFD Alex"));

    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    transport.thenBody(410, "gone\u0000");

    RuntimeException end = workDue().get(0);

    assertThat(((JobEnd) end).verb()).isEqualTo(JobEnd.Verb.CANCEL);
    assertThat(show(sub.subscription().id()).disabledReason()).hasValue(DisabledReason.GONE);
    assertThat(hooks.subscriptions.attempts(sub.subscription().id(), OptionalLong.of(seq(2)), 10))
        .singleElement()
        .satisfies(a -> assertThat(a.responseBody()).hasValue("gone\uFFFD"));
  }

  @Test
  void after_a_rotation_both_secrets_sign_until_the_window_ends() throws SQLException {
    CreatedSubscription sub = create(false);
    CreatedSubscription rotated = hooks.subscriptions.rotateSecret(sub.subscription().id());
    assertThat(rotated.secret()).isNotEqualTo(sub.secret());
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    workDue();
    var request = transport.sent.get(0);
    String id = request.headers().get("webhook-id");
    long ts = Long.parseLong(request.headers().get("webhook-timestamp"));
    String signature = request.headers().get("webhook-signature");
    for (String secret : List.of(sub.secret(), rotated.secret())) {
      assertThat(
              WebhookSignature.verify(
                  id, ts, request.body(), signature, WebhookSecret.parse(secret)))
          .isTrue();
    }
    hooks.clock.advance(Duration.ofHours(25));
    hooks.subscriptions.resend(sub.subscription().id(), seq(1));
    workDue();
    var late = transport.sent.get(1);
    assertThat(late.headers().get("webhook-id")).as("a resend keeps the event's id").isEqualTo(id);
    String lateSignature = late.headers().get("webhook-signature");
    long lateTs = Long.parseLong(late.headers().get("webhook-timestamp"));
    assertThat(
            WebhookSignature.verify(
                id, lateTs, late.body(), lateSignature, WebhookSecret.parse(rotated.secret())))
        .isTrue();
    assertThat(
            WebhookSignature.verify(
                id, lateTs, late.body(), lateSignature, WebhookSecret.parse(sub.secret())))
        .as("the replaced secret no longer signs after webhooks.secretRotationWindow")
        .isFalse();
    CreatedSubscription third = hooks.subscriptions.rotateSecret(sub.subscription().id());
    assertThat(third.secret())
        .as("once the window ended, rotate again")
        .isNotEqualTo(rotated.secret());
  }

  @Test
  void a_second_rotation_inside_the_window_is_refused_and_changes_nothing() throws SQLException {
    CreatedSubscription sub = create(false);
    CreatedSubscription rotated = hooks.subscriptions.rotateSecret(sub.subscription().id());
    hooks.clock.advance(Duration.ofHours(23));

    assertThatThrownBy(() -> hooks.subscriptions.rotateSecret(sub.subscription().id()))
        .isInstanceOf(BothyException.class)
        .extracting(e -> ((BothyException) e).kind())
        .isEqualTo(ErrorKind.CONFLICT);

    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    workDue();
    var request = transport.sent.get(0);
    for (String secret : List.of(sub.secret(), rotated.secret())) {
      assertThat(
              WebhookSignature.verify(
                  request.headers().get("webhook-id"),
                  Long.parseLong(request.headers().get("webhook-timestamp")),
                  request.body(),
                  request.headers().get("webhook-signature"),
                  WebhookSecret.parse(secret)))
          .as("both secrets still sign")
          .isTrue();
    }
  }

  @Test
  void failures_retry_keep_a_streak_and_disable_as_failing_after_disable_after()
      throws SQLException {
    CreatedSubscription sub = create(false);
    UUID id = sub.subscription().id();
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    transport.then(500, Map.of()).then(503, Map.of());
    hooks.clock.advance(Duration.ofMinutes(1));
    Instant firstFailure = WebhooksFixture.START.plus(Duration.ofMinutes(1));
    List<RuntimeException> first = workDue();
    assertThat(first.get(0)).isInstanceOf(DeliveryJob.DeliveryFailed.class).hasMessage("status");
    assertThat(show(id).failingSince()).hasValue(firstFailure);
    assertThat(show(id).updatedAt())
        .as("a streak that begins changes the subscription")
        .isEqualTo(firstFailure);
    hooks.clock.advance(Duration.ofHours(1));
    List<RuntimeException> second = workDue();
    assertThat(second.get(0)).hasMessage("status");
    assertThat(show(id).state()).isEqualTo(SubscriptionState.ACTIVE);
    assertThat(show(id).updatedAt())
        .as("a streak that goes on changes nothing")
        .isEqualTo(firstFailure);

    List<Attempt> attempts = hooks.subscriptions.attempts(id, OptionalLong.of(seq(1)), 10);
    assertThat(attempts).extracting(Attempt::outcome).containsOnly(DeliveryOutcome.FAILED);
    assertThat(attempts)
        .extracting(a -> a.errorKind().orElse(""))
        .containsExactly("status", "status");
    assertThat(attempts)
        .extracting(a -> a.responseStatus().orElse(0))
        .as("newest first")
        .containsExactly(503, 500);
    assertThat(attempts.get(1).responseBody()).hasValue("answer 500");

    transport.then(502, Map.of());
    hooks.clock.advance(DISABLE_AFTER);
    List<RuntimeException> third = workDue();
    assertThat(third.get(0)).isInstanceOf(JobEnd.class);
    assertThat(((JobEnd) third.get(0)).verb()).isEqualTo(JobEnd.Verb.CANCEL);
    assertThat(show(id).state()).isEqualTo(SubscriptionState.DISABLED);
    assertThat(show(id).disabledReason()).hasValue(DisabledReason.FAILING);
    assertThat(captured.events())
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("webhook subscription disabled")
                    .contains("reason=failing"));
  }

  @Test
  void a_success_clears_the_failure_streak() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    transport.then(500, Map.of());
    workDue();
    assertThat(show(sub.subscription().id()).failingSince()).isPresent();
    hooks.clock.advance(Duration.ofSeconds(5));
    workDue();
    assertThat(show(sub.subscription().id()).failingSince()).isEmpty();
    assertThat(show(sub.subscription().id()).lastDeliveredSeq()).isEqualTo(seq(1));
  }

  @Test
  void retry_after_is_an_attempt_retried_no_sooner_than_asked_and_gone_disables()
      throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    transport.then(429, Map.of("retry-after", "120"));
    RuntimeException end = workDue().get(0);
    assertThat(end).isInstanceOf(JobEnd.class);
    assertThat(((JobEnd) end).verb())
        .as("it counts toward the schedule's attempts, so a receiver cannot ask for more")
        .isEqualTo(JobEnd.Verb.RETRY);
    assertThat(((JobEnd) end).delay()).isEqualTo(Duration.ofSeconds(120));
    assertThat(
            hooks
                .subscriptions
                .attempts(sub.subscription().id(), OptionalLong.empty(), 10)
                .get(0)
                .outcome())
        .isEqualTo(DeliveryOutcome.RETRY_AFTER);

    transport.then(410, Map.of());
    RuntimeException gone = workDue().get(0);
    assertThat(((JobEnd) gone).verb()).isEqualTo(JobEnd.Verb.CANCEL);
    Subscription after = show(sub.subscription().id());
    assertThat(after.state()).isEqualTo(SubscriptionState.DISABLED);
    assertThat(after.disabledReason()).hasValue(DisabledReason.GONE);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    assertThat(hooks.dueJobs()).as("a disabled subscription gets no job").isEmpty();
  }

  @Test
  void a_timed_out_attempt_records_how_long_it_waited() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    // The fixture's webhooks.requestTimeout is 5 s.
    transport.thenAfter(Duration.ofSeconds(7), 204);

    workDue();

    var attempt =
        hooks.subscriptions.attempts(sub.subscription().id(), OptionalLong.empty(), 10).get(0);
    assertThat(attempt.errorKind()).hasValue("timeout");
    assertThat(attempt.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(4500));
  }

  @Test
  void a_receiver_busy_past_the_connection_wait_snoozes_the_job_without_an_attempt()
      throws SQLException {
    Duration wait = Duration.ofMillis(250);
    hooks.close();
    hooks =
        new WebhooksFixture(
            PG.app(),
            request -> {
              throw new ReceiverBusy(wait);
            },
            DISABLE_AFTER);
    UUID id = create(false).subscription().id();
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();

    List<RuntimeException> ends = workDue();

    assertThat(ends).hasSize(1).allSatisfy(end -> assertThat(end).isInstanceOf(JobEnd.class));
    JobEnd end = (JobEnd) ends.get(0);
    assertThat(end.verb()).as("not an attempt of the schedule").isEqualTo(JobEnd.Verb.SNOOZE);
    assertThat(end.delay())
        .as("the wait, jittered")
        .isBetween(wait, wait.multipliedBy(3).dividedBy(2));
    assertThat(hooks.subscriptions.attempts(id, OptionalLong.empty(), 10))
        .as("nothing was sent, so no attempt is recorded")
        .isEmpty();
    assertThat(show(id).failingSince()).as("no failure streak").isEmpty();
    assertThat(show(id).state()).isEqualTo(SubscriptionState.ACTIVE);
  }

  @Test
  void a_retry_after_of_zero_leaves_the_wait_to_the_schedule() throws SQLException {
    create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    transport.then(503, Map.of("retry-after", "0"));

    JobEnd end = (JobEnd) workDue().get(0);

    assertThat(end.verb()).isEqualTo(JobEnd.Verb.RETRY);
    assertThat(end.delay()).as("the runtime waits the schedule's delay at least").isZero();
  }

  @Test
  void an_ordered_subscription_delivers_one_at_a_time_and_a_failure_holds_the_rest()
      throws SQLException {
    CreatedSubscription sub = create(true);
    UUID id = sub.subscription().id();
    hooks.log.append(Ids.newId(), 3);
    drainConsumer();
    assertThat(hooks.dueJobs()).extracting(j -> j.args().seq()).containsExactly(seq(1));
    assertThat(show(id).heldSeq()).hasValue(seq(1));

    transport.then(500, Map.of()).then(503, Map.of());
    workDue();
    hooks.log.append(Ids.newId(), 2);
    drainConsumer();
    assertThat(hooks.dueJobs())
        .as("the failing event holds the later ones")
        .extracting(j -> j.args().seq())
        .containsExactly(seq(1));
    assertThat(show(id).heldSeq()).hasValue(seq(1));
    assertThat(hooks.subscriptions.attempts(id, OptionalLong.of(seq(1)), 10)).hasSize(1);

    for (int i = 0; i < 10 && !hooks.dueJobs().isEmpty(); i++) {
      hooks.clock.advance(Duration.ofMinutes(5));
      workDue();
    }
    assertThat(transport.seqs()).containsExactlyElementsOf(seqs(1, 1, 1, 2, 3, 4, 5));
    assertThat(show(id).heldSeq()).isEmpty();
    assertThat(show(id).lastDeliveredSeq()).isEqualTo(seq(5));

    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    assertThat(hooks.dueJobs()).extracting(j -> j.args().seq()).containsExactly(seq(6));
  }

  @Test
  void
      an_ordered_subscription_is_disabled_when_its_held_event_is_a_dead_letter_and_enable_resends_it()
          throws SQLException {
    CreatedSubscription sub = create(true);
    UUID id = sub.subscription().id();
    hooks.log.append(Ids.newId(), 2);
    drainConsumer();
    for (int i = 0; i < 8; i++) {
      transport.then(500, Map.of());
    }
    for (int i = 0; i < 20 && !hooks.dueJobs().isEmpty(); i++) {
      hooks.clock.advance(Duration.ofMinutes(1));
      workDue();
    }
    assertThat(hooks.allJobs())
        .extracting(WebhooksFixture.QueuedJob::state)
        .containsExactly("discarded");
    assertThat(show(id).disabledReason()).hasValue(DisabledReason.FAILING);
    assertThat(show(id).heldSeq()).hasValue(seq(1));

    hooks.subscriptions.enable(id);
    assertThat(hooks.dueJobs()).extracting(j -> j.args().seq()).containsExactly(seq(1));
    transport.sent.clear();
    for (int i = 0; i < 5 && !hooks.dueJobs().isEmpty(); i++) {
      workDue();
    }
    assertThat(transport.seqs()).containsExactlyElementsOf(seqs(1, 2));
    assertThat(show(id).state()).isEqualTo(SubscriptionState.ACTIVE);
    assertThat(show(id).heldSeq()).isEmpty();
  }

  @Test
  void events_lost_to_retention_disable_with_gap_and_recover_delivers_from_a_number()
      throws SQLException {
    CreatedSubscription plain = create(false);
    CreatedSubscription ordered = create(true);
    hooks.log.append(Ids.newId(), 4);
    drainConsumer();
    try (Connection c = PG.owner().getConnection();
        Statement st = c.createStatement()) {
      // The deliveries queued before the loss are done; only what recovery queues is due.
      st.execute("UPDATE jobs SET state = 'completed', finalized_at = now()");
    }
    hooks.log.uow.run(
        () -> {
          new WebhooksConsumer(hooks.log.uow, hooks.subscriptionStore, hooks.inserter, hooks.clock)
              .eventsLost(seq(1), seq(2));
          return null;
        });
    assertThat(show(plain.subscription().id()).disabledReason()).hasValue(DisabledReason.GAP);
    assertThat(show(ordered.subscription().id()).disabledReason()).hasValue(DisabledReason.GAP);

    assertThatThrownBy(() -> hooks.subscriptions.recover(plain.subscription().id(), seq(6)))
        .isInstanceOf(BothyException.class)
        .extracting(e -> ((BothyException) e).kind())
        .isEqualTo(ErrorKind.INVALID);
    Subscription recovered = hooks.subscriptions.recover(plain.subscription().id(), seq(3));
    assertThat(recovered.state()).isEqualTo(SubscriptionState.ACTIVE);
    hooks.subscriptions.recover(ordered.subscription().id(), seq(2));
    assertThat(show(ordered.subscription().id()).heldSeq()).hasValue(seq(2));
    assertThat(hooks.dueJobs())
        .extracting(j -> j.args().subscriptionId() + ":" + j.args().seq())
        .containsExactlyInAnyOrder(
            ordered.subscription().id() + ":" + seq(2),
            plain.subscription().id() + ":" + seq(3),
            plain.subscription().id() + ":" + seq(4));

    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    assertThat(hooks.dueJobs())
        .as("after recovery the consumer queues the new event; the ordered one holds 2")
        .extracting(j -> j.args().subscriptionId() + ":" + j.args().seq())
        .containsExactlyInAnyOrder(
            ordered.subscription().id() + ":" + seq(2),
            plain.subscription().id() + ":" + seq(3),
            plain.subscription().id() + ":" + seq(4),
            plain.subscription().id() + ":" + seq(5));
  }

  @Test
  void a_delivery_whose_event_is_gone_disables_with_gap() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.uow.run(
        () -> {
          hooks.inserter.insertTx(
              List.of(DeliveryJobs.delivery(sub.subscription().id(), 0, seq(99))));
          return null;
        });
    RuntimeException end = workDue().get(0);
    assertThat(((JobEnd) end).verb()).isEqualTo(JobEnd.Verb.CANCEL);
    assertThat(show(sub.subscription().id()).disabledReason()).hasValue(DisabledReason.GAP);
    assertThat(transport.sent).isEmpty();
  }

  @Test
  void the_rate_limit_snoozes_the_attempts_over_it_to_the_next_second() throws SQLException {
    CreatedSubscription sub =
        hooks.subscriptions.create(
            new NewSubscription(url, List.of("settings.updated"), false, OptionalInt.of(2)));
    hooks.log.append(Ids.newId(), 3);
    drainConsumer();
    List<RuntimeException> ends = workDue();
    assertThat(ends.get(0)).isNull();
    assertThat(ends.get(1)).isNull();
    assertThat(ends.get(2)).isInstanceOf(JobEnd.class);
    assertThat(((JobEnd) ends.get(2)).delay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(transport.sent).hasSize(2);
    assertThat(show(sub.subscription().id()).lastDeliveredSeq()).isEqualTo(seq(2));
  }

  @Test
  void disable_stops_queued_jobs_and_delete_removes_the_attempts() throws SQLException {
    CreatedSubscription sub = create(false);
    hooks.log.append(Ids.newId(), 1);
    drainConsumer();
    hooks.subscriptions.disable(sub.subscription().id());
    RuntimeException end = workDue().get(0);
    assertThat(((JobEnd) end).verb()).isEqualTo(JobEnd.Verb.CANCEL);
    assertThat(transport.sent).isEmpty();
    assertThat(show(sub.subscription().id()).disabledReason()).hasValue(DisabledReason.MANUAL);

    hooks.subscriptions.enable(sub.subscription().id());
    hooks.subscriptions.resend(sub.subscription().id(), seq(1));
    workDue();
    assertThat(transport.sent).hasSize(1);
    hooks.subscriptions.delete(sub.subscription().id());
    assertThat(hooks.subscriptions.find(sub.subscription().id())).isEmpty();
    assertThat(PgExtension.rows(PG.owner(), "SELECT count(*)::text FROM webhook_attempts"))
        .containsExactly("0");
    assertThatThrownBy(() -> hooks.subscriptions.delete(sub.subscription().id()))
        .isInstanceOf(BothyException.class);
  }

  @Test
  void a_target_the_network_rules_refuse_is_refused_at_creation() {
    assertThatThrownBy(
            () ->
                hooks.subscriptions.create(
                    new NewSubscription(
                        "http://10.1.2.3/hooks",
                        List.of("settings.updated"),
                        false,
                        OptionalInt.empty())))
        .isInstanceOf(TargetNotAllowed.class);
    assertThatThrownBy(
            () ->
                hooks.subscriptions.create(
                    new NewSubscription(url, List.of("no.such.type"), false, OptionalInt.empty())))
        .isInstanceOf(BothyException.class);
  }
}
