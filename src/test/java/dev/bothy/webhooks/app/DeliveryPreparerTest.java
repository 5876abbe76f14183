package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.sync.Event;
import dev.bothy.sync.EventLog;
import dev.bothy.sync.ReadResult;
import dev.bothy.testing.EventLogFixture;
import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.NewSubscription;
import dev.bothy.webhooks.app.DeliveryPreparer.Prepared;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
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
 * The unit before the request, shared by the deliveries that start together (D-WB-1): one read of
 * the subscriptions and one of the events per batch, each delivery gets the verdict its own unit
 * would have given, the rate limit is claimed once per subscription and batch, and a batch whose
 * unit fails is prepared again one delivery per unit.
 */
class DeliveryPreparerTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private WebhooksFixture hooks;
  private final List<List<Long>> batches = new CopyOnWriteArrayList<>();
  private volatile long poisoned = -1;
  private volatile DeliveryPreparer preparer;
  private volatile int holdFirstUntilQueued;
  private volatile boolean firstPreparing;

  /** The event log, noting each batch's read; the first waits until the others are queued. */
  private final class CountingLog implements EventLog {
    @Override
    public List<Event> readNumbers(Collection<Long> seqs) {
      if (batches.isEmpty() && holdFirstUntilQueued > 0) {
        firstPreparing = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (preparer.queued() < holdFirstUntilQueued && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
      batches.add(List.copyOf(seqs));
      if (seqs.contains(poisoned)) {
        throw new IllegalStateException("refused by the test");
      }
      return hooks.log.log.readNumbers(seqs);
    }

    @Override
    public long head() {
      return hooks.log.log.head();
    }

    @Override
    public long minRetained() {
      return hooks.log.log.minRetained();
    }

    @Override
    public ReadResult readAfter(long afterSeq, int limit) {
      return hooks.log.log.readAfter(afterSeq, limit);
    }

    @Override
    public Optional<List<Long>> numbersOf(List<UUID> ids, long afterSeq) {
      return hooks.log.log.numbersOf(ids, afterSeq);
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
    preparer =
        new DeliveryPreparer(
            hooks.log.uow,
            hooks.subscriptionStore,
            new CountingLog(),
            new RateSlots(hooks.log.uow, hooks.subscriptionStore, 10),
            hooks.clock);
  }

  @AfterEach
  void tearDown() {
    hooks.close();
  }

  private UUID subscription(int rateLimit) {
    return hooks
        .subscriptions
        .create(
            new NewSubscription(
                "http://127.0.0.1:9/hooks",
                List.of("settings.updated"),
                false,
                OptionalInt.of(rateLimit)))
        .subscription()
        .id();
  }

  /** Appends n events and returns their numbers. */
  private List<Long> events(int n) {
    long before = hooks.log.log.head();
    hooks.log.uow.run(
        () -> hooks.log.appender.append(EventLogFixture.drafts(UUID.randomUUID(), n)));
    List<Long> seqs = new ArrayList<>();
    for (long s = before + 1; s <= before + n; s++) {
      seqs.add(s);
    }
    return seqs;
  }

  private static DeliverArgs args(UUID subscription, long seq) {
    return new DeliverArgs(subscription, seq, 0, false);
  }

  /** Prepares each delivery from its own thread, the first alone; returns verdicts or failures. */
  private List<Object> prepareConcurrently(List<DeliverArgs> deliveries) throws Exception {
    holdFirstUntilQueued = deliveries.size() - 1;
    ExecutorService threads = Executors.newFixedThreadPool(deliveries.size());
    try {
      List<Future<Object>> ends = new ArrayList<>();
      ends.add(threads.submit(() -> prepareCatching(deliveries.get(0))));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!firstPreparing && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      for (DeliverArgs a : deliveries.subList(1, deliveries.size())) {
        ends.add(threads.submit(() -> prepareCatching(a)));
      }
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : ends) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      threads.shutdownNow();
    }
  }

  private Object prepareCatching(DeliverArgs args) {
    try {
      return preparer.prepare(args);
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static long sent(Object verdict) {
    assertThat(verdict).isInstanceOf(Prepared.Send.class);
    return ((Prepared.Send) verdict).event().seq();
  }

  @Test
  void deliveries_that_start_together_share_one_unit_and_each_gets_its_own_verdict()
      throws Exception {
    UUID a = subscription(50);
    UUID deleted = subscription(50);
    UUID disabled = subscription(50);
    List<Long> seqs = events(3);
    hooks.subscriptions.delete(deleted);
    hooks.subscriptions.disable(disabled);
    long gone = seqs.get(2) + 1000;

    List<Object> verdicts =
        prepareConcurrently(
            List.of(
                args(a, seqs.get(0)),
                args(a, seqs.get(1)),
                args(deleted, seqs.get(1)),
                args(disabled, seqs.get(2)),
                args(a, gone),
                args(a, seqs.get(2))));

    assertThat(batches)
        .as("the first alone, the five queued meanwhile in one unit (three events read)")
        .hasSize(2);
    assertThat(batches.get(0)).containsExactly(seqs.get(0));
    assertThat(batches.get(1)).containsExactlyInAnyOrder(seqs.get(1), gone, seqs.get(2));
    assertThat(sent(verdicts.get(0))).isEqualTo(seqs.get(0));
    assertThat(sent(verdicts.get(1))).isEqualTo(seqs.get(1));
    assertThat(verdicts.get(2)).isEqualTo(new Prepared.Cancel("subscription deleted"));
    assertThat(verdicts.get(3))
        .isEqualTo(new Prepared.Cancel("subscription disabled or delivery superseded"));
    assertThat(verdicts.get(4)).isEqualTo(new Prepared.EventGone());
    assertThat(sent(verdicts.get(5))).isEqualTo(seqs.get(2));
    assertThat(((Prepared.Send) verdicts.get(5)).subscription().view().id()).isEqualTo(a);
  }

  @Test
  void a_batch_claims_its_subscription_rate_once_and_what_the_limit_leaves_waits()
      throws Exception {
    UUID other = subscription(50);
    UUID limited = subscription(3);
    List<Long> seqs = events(5);
    List<DeliverArgs> deliveries = new ArrayList<>();
    deliveries.add(args(other, seqs.get(0)));
    seqs.forEach(s -> deliveries.add(args(limited, s)));

    List<Object> verdicts = prepareConcurrently(deliveries);

    assertThat(batches).hasSize(2);
    List<Object> limitedOnes = verdicts.subList(1, verdicts.size());
    assertThat(limitedOnes.stream().filter(Prepared.Send.class::isInstance)).hasSize(3);
    assertThat(limitedOnes.stream().filter(Prepared.Wait.class::isInstance))
        .hasSize(2)
        .allSatisfy(
            w ->
                assertThat(((Prepared.Wait) w).until())
                    .isEqualTo(hooks.clock.now().plusSeconds(1)));
    assertThat(
            PgExtension.rows(
                PG.owner(),
                "SELECT rate_window_count::text FROM webhook_subscriptions WHERE id = '"
                    + limited
                    + "'"))
        .as("one claim of the limit for the batch, not one per delivery")
        .containsExactly("3");
  }

  @Test
  void a_delivery_whose_batch_fails_is_prepared_again_alone_and_fails_alone() throws Exception {
    UUID a = subscription(50);
    List<Long> seqs = events(4);
    poisoned = seqs.get(2);

    List<Object> verdicts =
        prepareConcurrently(
            List.of(
                args(a, seqs.get(0)),
                args(a, seqs.get(1)),
                args(a, seqs.get(2)),
                args(a, seqs.get(3))));

    assertThat(sent(verdicts.get(0))).isEqualTo(seqs.get(0));
    assertThat(sent(verdicts.get(1))).isEqualTo(seqs.get(1));
    assertThat(verdicts.get(2))
        .isInstanceOf(IllegalStateException.class)
        .hasFieldOrPropertyWithValue("message", "refused by the test");
    assertThat(sent(verdicts.get(3))).isEqualTo(seqs.get(3));
    assertThat(batches)
        .as("the first alone, the failed batch of three, then each of the three alone")
        .hasSize(5);
  }
}
