package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.kernel.Ids;
import dev.bothy.platform.jobs.JobContext;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.Attempt;
import dev.bothy.webhooks.DeliveryOutcome;
import dev.bothy.webhooks.NewSubscription;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The group commit of delivered attempts: concurrent successes share one unit, each attempt is
 * written once with its subscription's last delivered number, one bad attempt fails alone, and an
 * attempt of a deleted subscription is dropped.
 */
class DeliveredRecorderTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private WebhooksFixture hooks;
  private final List<Integer> batches = new CopyOnWriteArrayList<>();
  // The jobs completed per committed unit, by the attempts' ids (each test job has its attempt's).
  private final List<List<UUID>> completed = new CopyOnWriteArrayList<>();
  private volatile UUID poisoned;
  private volatile DeliveredRecorder recorder;
  private volatile int holdFirstUntilQueued;
  private volatile boolean firstWriting;

  /** The attempts' store, counting batches; the first waits until the others are queued. */
  private final class CountingAttempts implements AttemptRepository {
    @Override
    public void insert(Attempt attempt) {
      insertAll(List.of(attempt));
    }

    @Override
    public void insertAll(List<Attempt> attempts) {
      if (batches.isEmpty() && holdFirstUntilQueued > 0) {
        firstWriting = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (recorder.queued() < holdFirstUntilQueued && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
      batches.add(attempts.size());
      if (attempts.stream().anyMatch(a -> a.id().equals(poisoned))) {
        throw new IllegalStateException("refused by the test");
      }
      hooks.attemptStore.insertAll(attempts);
    }

    @Override
    public List<Attempt> list(
        UUID subscriptionId,
        OptionalLong eventSeq,
        java.util.Optional<dev.bothy.webhooks.AttemptKey> before,
        int limit) {
      return hooks.attemptStore.list(subscriptionId, eventSeq, before, limit);
    }

    @Override
    public long countUpTo(UUID subscriptionId, int cap) {
      return hooks.attemptStore.countUpTo(subscriptionId, cap);
    }

    @Override
    public int deleteOlderThan(Instant before, int limit) {
      return hooks.attemptStore.deleteOlderThan(before, limit);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM webhook_subscriptions");
    }
    hooks =
        new WebhooksFixture(
            PG.app(), request -> SendResult.error("io", Duration.ZERO), Duration.ofDays(5));
    recorder =
        new DeliveredRecorder(
            hooks.log.uow,
            hooks.subscriptionStore,
            new CountingAttempts(),
            hooks.clock,
            jobs -> {
              List<UUID> ids = jobs.stream().map(JobContext::id).toList();
              hooks.log.uow.afterCommit(() -> completed.add(ids));
            });
  }

  @AfterEach
  void tearDown() {
    hooks.close();
  }

  private UUID subscription() {
    return hooks
        .subscriptions
        .create(
            new NewSubscription(
                "http://127.0.0.1:9/hooks", List.of("settings.updated"), false, OptionalInt.of(5)))
        .subscription()
        .id();
  }

  private Attempt delivered(UUID subscription, long seq) {
    return new Attempt(
        Ids.newId(),
        subscription,
        seq,
        Ids.newId(),
        1,
        hooks.clock.now(),
        Duration.ofMillis(3),
        DeliveryOutcome.DELIVERED,
        OptionalInt.of(204),
        Optional.of(""),
        Optional.empty());
  }

  private JobContext job(Attempt attempt) {
    return new JobContext(attempt.id(), DeliveryJobs.KIND, 1, 8, hooks.clock.now());
  }

  /** Records every attempt from its own thread, the first alone, and returns what each threw. */
  private List<Throwable> recordConcurrently(List<Attempt> attempts) throws Exception {
    holdFirstUntilQueued = attempts.size() - 1;
    ExecutorService threads = Executors.newFixedThreadPool(attempts.size());
    try {
      List<Future<Throwable>> ends = new ArrayList<>();
      ends.add(threads.submit(() -> recordCatching(attempts.get(0))));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!firstWriting && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      for (Attempt a : attempts.subList(1, attempts.size())) {
        ends.add(threads.submit(() -> recordCatching(a)));
      }
      List<Throwable> out = new ArrayList<>();
      for (Future<Throwable> f : ends) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      threads.shutdownNow();
    }
  }

  private Throwable recordCatching(Attempt attempt) {
    try {
      recorder.record(attempt, job(attempt));
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Test
  void concurrent_successes_share_one_unit_and_each_is_written_once() throws Exception {
    UUID a = subscription();
    UUID b = subscription();
    hooks.log.uow.run(() -> hooks.subscriptionStore.failed(a, hooks.clock.now()));
    List<Attempt> all = List.of(delivered(a, 3), delivered(a, 9), delivered(b, 4), delivered(a, 5));
    List<Throwable> ends = recordConcurrently(all);

    assertThat(ends).containsOnlyNulls();
    assertThat(batches)
        .as("the first alone, the three queued meanwhile together")
        .containsExactly(1, 3);
    assertThat(completed).as("each batch's jobs completed in its unit").hasSize(2);
    assertThat(completed.get(0)).containsExactly(all.get(0).id());
    assertThat(completed.get(1))
        .containsExactlyInAnyOrderElementsOf(all.subList(1, 4).stream().map(Attempt::id).toList());
    assertThat(hooks.subscriptions.attempts(a, OptionalLong.empty(), 10)).hasSize(3);
    assertThat(hooks.subscriptions.attempts(b, OptionalLong.empty(), 10)).hasSize(1);
    assertThat(hooks.subscriptions.find(a).orElseThrow().lastDeliveredSeq()).isEqualTo(9);
    assertThat(hooks.subscriptions.find(a).orElseThrow().failingSince()).isEmpty();
    assertThat(hooks.subscriptions.find(b).orElseThrow().lastDeliveredSeq()).isEqualTo(4);
  }

  @Test
  void an_attempt_whose_write_fails_fails_alone() throws Exception {
    UUID a = subscription();
    Attempt bad = delivered(a, 2);
    poisoned = bad.id();
    List<Attempt> all = List.of(delivered(a, 1), bad, delivered(a, 3), delivered(a, 4));
    List<Throwable> ends = recordConcurrently(all);

    assertThat(ends.get(0)).isNull();
    assertThat(ends.get(1)).hasMessage("refused by the test");
    assertThat(ends.get(2)).isNull();
    assertThat(ends.get(3)).isNull();
    assertThat(hooks.subscriptions.attempts(a, OptionalLong.empty(), 10))
        .extracting(Attempt::eventSeq)
        .containsExactlyInAnyOrder(1L, 3L, 4L);
    assertThat(completed.stream().flatMap(List::stream))
        .as("the jobs of the committed attempts, and not the failed one's")
        .containsExactlyInAnyOrder(all.get(0).id(), all.get(2).id(), all.get(3).id());
    assertThat(hooks.subscriptions.find(a).orElseThrow().lastDeliveredSeq()).isEqualTo(4);
  }

  @Test
  void an_attempt_of_a_deleted_subscription_is_dropped() throws Exception {
    UUID a = subscription();
    Attempt dropped = delivered(UUID.randomUUID(), 7);
    assertThat(recorder.record(dropped, job(dropped))).as("dropped").isFalse();
    Attempt kept = delivered(a, 8);
    assertThat(recorder.record(kept, job(kept))).as("written").isTrue();
    assertThat(PgExtension.rows(PG.owner(), "SELECT event_seq::text FROM webhook_attempts"))
        .containsExactly("8");
  }
}
