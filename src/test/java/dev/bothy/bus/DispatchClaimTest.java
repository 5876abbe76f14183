package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bothy.bus.adapters.postgres.PgProjectionLock;
import dev.bothy.bus.app.DeadLetterRepository;
import dev.bothy.bus.app.Dispatch;
import dev.bothy.bus.domain.Verdict;
import dev.bothy.sync.Event;
import dev.bothy.sync.EventTypes;
import dev.bothy.testing.PgExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a delivery costs before its handler runs (D-NC-3): a first delivery claims its delivery row
 * in one statement, which also refuses a pair with an open dead letter, and asks the dead letters
 * apart only when the claim fails (a redelivery or a parked pair), to tell the two outcomes apart.
 */
class DispatchClaimTest {
  @RegisterExtension static final PgExtension PG = new PgExtension();

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger asked = new AtomicInteger();
  private DispatchParts parts;
  private Dispatch dispatch;

  private void start() {
    parts =
        new DispatchParts(
            PG.app(),
            new BusConsumer(
                "probe_main",
                List.of(
                    BusHandler.of(
                        "probe.ok",
                        EventTypes.SETTINGS_UPDATED,
                        (tx, event, at) -> calls.incrementAndGet()))));
    DeadLetterRepository letters = parts.letters;
    // Counts the dead-letter check and passes every call on to the real store.
    DeadLetterRepository counting =
        (DeadLetterRepository)
            Proxy.newProxyInstance(
                DeadLetterRepository.class.getClassLoader(),
                new Class<?>[] {DeadLetterRepository.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("openFor")) {
                    asked.incrementAndGet();
                  }
                  try {
                    return method.invoke(letters, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    dispatch =
        new Dispatch(
            parts.log.uow,
            parts.log.appender,
            parts.codec,
            parts.deliveries,
            counting,
            new PgProjectionLock(),
            new DispatchMetrics() {
              @Override
              public void outcome(String handler, String outcome) {}

              @Override
              public void handled(String handler, long nanos) {}

              @Override
              public void deadLetter(String handler) {}
            },
            parts.clock,
            200);
  }

  private Dispatch.Result deliver(Event event, int count) {
    return dispatch.deliver(event, parts.handlers.interested(event.type()), count);
  }

  private static long rows(String table, UUID event) throws Exception {
    return PgExtension.scalar(
        PG.owner(), "SELECT count(*) FROM " + table + " WHERE event_id = '" + event + "'");
  }

  @Test
  void a_first_delivery_claims_its_row_without_asking_the_dead_letters_and_a_redelivery_asks_once()
      throws Exception {
    start();
    Event event = parts.appendOne();

    Dispatch.Result first = deliver(event, 1);
    assertThat(first.verdict()).isEqualTo(Verdict.ACK);
    assertThat(first.perHandler()).isEqualTo(Map.of("probe.ok", "ack"));
    assertThat(asked.get()).as("dead-letter checks of a first delivery").isZero();
    assertThat(rows("event_deliveries", event.id())).isEqualTo(1);

    Dispatch.Result again = deliver(event, 2);
    assertThat(again.verdict()).isEqualTo(Verdict.ACK);
    assertThat(again.perHandler()).isEqualTo(Map.of("probe.ok", "duplicate"));
    assertThat(asked.get()).as("dead-letter checks of a redelivery").isEqualTo(1);
    assertThat(calls.get()).as("handler calls").isEqualTo(1);
  }

  @Test
  void an_open_dead_letter_keeps_the_claim_from_writing_the_row_and_the_delivery_is_parked()
      throws Exception {
    start();
    Event event = parts.appendOne();
    parts.log.uow.run(
        () ->
            parts.letters.upsert(
                new DeadLetter(
                    UUID.randomUUID(),
                    "probe.ok",
                    "probe_main",
                    event.id(),
                    event.seq(),
                    event.type(),
                    "exception",
                    "java.lang.IllegalStateException",
                    "the handler failed for Alex",
                    1,
                    DispatchParts.START,
                    Optional.empty(),
                    0)));

    Dispatch.Result parked = deliver(event, 2);
    assertThat(parked.perHandler()).isEqualTo(Map.of("probe.ok", "parked"));
    assertThat(rows("event_deliveries", event.id())).as("delivery rows").isZero();
    assertThat(calls.get()).as("handler calls").isZero();
    assertThat(asked.get()).as("dead-letter checks after the failed claim").isEqualTo(1);
  }
}
