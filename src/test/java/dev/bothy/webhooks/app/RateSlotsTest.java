package dev.bothy.webhooks.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.testing.PgExtension;
import dev.bothy.webhooks.NewSubscription;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rate limit shared through the subscription's row and claimed in batches: the row counts every
 * claim, so processes together never exceed the limit in a window, while each process updates the
 * row once per claim instead of once per attempt.
 */
class RateSlotsTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private WebhooksFixture hooks;

  @BeforeEach
  void setUp() throws Exception {
    try (Connection c = PG.owner().getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM webhook_subscriptions");
    }
    hooks =
        new WebhooksFixture(
            PG.app(), request -> SendResult.error("io", Duration.ZERO), Duration.ofDays(5));
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

  private Optional<Instant> take(RateSlots slots, UUID id, int limit) {
    return hooks.log.uow.run(() -> slots.take(id, hooks.clock.now(), limit));
  }

  private int windowCount(UUID id) throws Exception {
    return Integer.parseInt(
        PgExtension.rows(
                PG.owner(),
                "SELECT rate_window_count::text FROM webhook_subscriptions WHERE id = '" + id + "'")
            .get(0));
  }

  @Test
  void a_process_claims_attempts_in_batches_and_waits_for_the_next_window_when_the_limit_is_used()
      throws Exception {
    UUID id = subscription(12);
    RateSlots slots = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 5);
    for (int i = 0; i < 12; i++) {
      assertThat(take(slots, id, 12)).as("attempt " + (i + 1)).isEmpty();
    }
    assertThat(take(slots, id, 12)).hasValue(hooks.clock.now().plus(Duration.ofSeconds(1)));
    assertThat(windowCount(id))
        .as("four claims of five for thirteen attempts: the row was updated four times")
        .isEqualTo(20);

    hooks.clock.advance(Duration.ofSeconds(1));
    assertThat(take(slots, id, 12)).as("a new window").isEmpty();
    assertThat(windowCount(id)).isEqualTo(5);
  }

  @Test
  void a_claim_whose_unit_rolls_back_lends_nothing() throws Exception {
    UUID id = subscription(12);
    RateSlots slots = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 5);
    assertThatThrownBy(
            () ->
                hooks.log.uow.run(
                    () -> {
                      slots.take(id, hooks.clock.now(), 12);
                      throw new IllegalStateException("the unit fails after its claim");
                    }))
        .hasMessage("the unit fails after its claim");
    assertThat(take(slots, id, 12)).isEmpty();
    assertThat(windowCount(id))
        .as("the second take claimed from the row: the rolled back claim lent no attempt")
        .isEqualTo(5);
  }

  @Test
  void two_processes_together_never_exceed_the_limit_in_one_window() {
    UUID id = subscription(7);
    RateSlots a = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 3);
    RateSlots b = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 3);
    int granted = 0;
    for (int i = 0; i < 10; i++) {
      granted += take(a, id, 7).isEmpty() ? 1 : 0;
      granted += take(b, id, 7).isEmpty() ? 1 : 0;
    }
    assertThat(granted).isEqualTo(7);
  }

  @Test
  void a_claim_never_asks_for_more_than_the_limit() throws Exception {
    UUID id = subscription(2);
    RateSlots slots = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 10);
    assertThat(take(slots, id, 2)).isEmpty();
    assertThat(take(slots, id, 2)).isEmpty();
    assertThat(windowCount(id)).isEqualTo(2);
    assertThat(take(slots, id, 2)).isPresent();
  }

  @Test
  void a_deleted_subscription_takes_nothing_and_leaves_the_refusal_to_the_caller() {
    RateSlots slots = new RateSlots(hooks.log.uow, hooks.subscriptionStore, 3);
    assertThat(take(slots, UUID.randomUUID(), 5)).isEmpty();
  }
}
